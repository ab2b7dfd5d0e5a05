// duet-kv-stackful: the KV server driven by the stackful voice (fibers with
// plain blocking calls). Same core, same ServerRuntime as duet-kv-stackless.
#include <optional>
#include <stop_token>

#include "kv/aof/aof_wait_fiber.hpp"
#include "kv/push_signal.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"
#include "stackful/event.hpp"
#include "stackful/scheduler.hpp"
#include "stackful/sleep.hpp"
#include "stackful/tcp_listener.hpp"
#include "stackful/when_any.hpp"

namespace {

using namespace duet;
using kv::ServerRuntime;

// Sends the replies once their writes are logged (AOF group commit).
bool flush(ServerRuntime& rt, fiber::TcpStream& conn, kv::Session& session, const std::stop_token& stop) {
  const auto out = session.output();
  kv::wait_durable(rt.aof());
  if (!conn.send_all(out, stop)) return false;
  session.consume_output(out.size());
  return true;
}

// A connection that has subscribed spends the rest of its life here, waiting
// for bytes from its client or a message pushed to it, whichever comes first.
// The recv keeps what it got even when the push wins (both can complete in one
// loop turn): its bytes are fed, never dropped. Others never pay for this.
void serve_subscriber(ServerRuntime& rt, fiber::TcpStream& conn, kv::Session& session, const std::stop_token& stop) {
  fiber::Event pushed;
  kv::PushSignal signal(session, pushed);
  for (;;) {
    session.collect_pushes();  // only here, between sends: a push never moves bytes being sent
    if (!session.output().empty() && !flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.wants_input()) {
      session.process();
      continue;
    }
    pushed.reset();
    if (session.has_pushes()) continue;  // arrived while we were sending
    std::optional<IoResult<RecvBuffer>> in;
    fiber::when_any(
        stop, [&](std::stop_token t) { in.emplace(conn.recv_pooled(std::move(t))); },
        [&](std::stop_token t) { (void)pushed.wait(t); });
    if (*in) {
      session.feed((*in)->bytes());
    } else if (in->error() != std::errc::operation_canceled || stop.stop_requested()) {
      break;  // EOF, an error, or the server stops; a recv the push cancelled is no error
    }
  }
}

void serve(ServerRuntime& rt, fiber::TcpStream conn, std::stop_token stop) {
  kv::Session session(rt.state(), conn.native_handle());
  for (;;) {
    if (!session.output().empty() && !flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.wants_input()) {  // over the output limit: drained, now run the rest
      session.process();
      continue;
    }
    if (session.push_mode()) {
      serve_subscriber(rt, conn, session, stop);
      break;
    }
    // The loop lends a buffer only once bytes are there, and gets it back at
    // the end of this iteration: waiting fibers hold none.
    auto in = conn.recv_pooled(stop);
    if (!in) break;
    session.feed(in->bytes());
  }
  rt.on_disconnect();
}

void accept_loop(ServerRuntime& rt, fiber::Scheduler& scheduler, fiber::TcpListener& listener, std::stop_token stop) {
  while (!stop.stop_requested()) {
    auto conn = listener.accept(stop);
    if (!conn) {
      fiber::sleep_for(rt.on_accept_error(conn.error(), listener.native_handle()), stop);
    } else if (rt.admit(conn->native_handle())) {
      scheduler.spawn(serve, std::ref(rt), std::move(*conn), stop).detach();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return ServerRuntime::main(argc, argv, "stackful", [](ServerRuntime& rt) {
    std::optional<fiber::Scheduler> scheduler;
    rt.open_backend([&](Backend b) { scheduler.emplace(fiber::SchedulerOptions{.backend = b}); });
    std::optional<fiber::TcpListener> listener;
    rt.bind_listener([&](const SocketAddress& a) { listener.emplace(fiber::TcpListener::bind(a)); });
    rt.start_aof(scheduler->loop());
    rt.on_listening(listener->local_address());
    std::stop_source stop;
    scheduler->spawn([&] {
      while (!rt.tick()) fiber::sleep_for(rt.tick_interval());
      stop.request_stop();  // cancels accept and every connection's pending I/O
    }).detach();
    scheduler->spawn([&] { accept_loop(rt, *scheduler, *listener, stop.get_token()); }).detach();
    scheduler->run();
    rt.on_stopped();
    return 0;
  });
}
