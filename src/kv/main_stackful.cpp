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
#include "stackful/this_fiber.hpp"

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

// Out of stacks (vm.max_map_count) closes this connection, not the server.
template <typename F>
bool start_reader(fiber::Fiber<void>& reader, F&& body) {
  try {
    reader = fiber::spawn(std::forward<F>(body));
    return true;
  } catch (const std::system_error&) {
    return false;
  }
}

// A connection that has subscribed spends the rest of its life here; others
// never get this call, its event or the second fiber. It waits on one event
// that both a push (PushSignal) and its recv (a reader fiber) set, so a
// message costs a wake-up and a send: the recv stays pending across pushes,
// never cancelled and re-armed, and this fiber alone runs commands and sends.
void serve_subscriber(ServerRuntime& rt, fiber::TcpStream& conn, kv::Session& session, const std::stop_token& stop) {
  fiber::Event wake;
  kv::PushSignal signal(session, wake);
  std::stop_source reader_stop;
  std::stop_callback link(stop, [&reader_stop] { reader_stop.request_stop(); });
  std::optional<IoResult<RecvBuffer>> in;
  fiber::Fiber<void> reader;  // holds the pending recv; joined before we return
  for (;;) {
    session.collect_pushes();  // only here, between sends: a push never moves bytes being sent
    if (!session.output().empty() && !flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.wants_input()) {
      session.process();
      continue;
    }
    if (in) {
      if (!*in) break;  // EOF, an error, or the server stops
      session.feed((*in)->bytes());
      in.reset();  // the buffer goes back to the loop
      reader.join();
      continue;
    }
    if (!reader.joinable() && !start_reader(reader, [&] {
          in.emplace(conn.recv_pooled(reader_stop.get_token()));
          wake.set();
        })) {
      break;
    }
    wake.reset();
    if (in || session.has_pushes()) continue;  // came in meanwhile
    if (!wake.wait(stop)) break;               // the server stops
  }
  reader_stop.request_stop();
  if (reader.joinable()) reader.join();
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
    std::optional<fiber::UnixListener> unix_listener;
    rt.bind_unix_listener([&](const SocketAddress& a, const ListenOptions& o) {
      unix_listener.emplace(fiber::UnixListener::bind(a, o));
    });
    rt.start_aof(scheduler->loop());
    rt.on_listening(listener->local_address());
    std::stop_source stop;
    scheduler->spawn([&] {
      while (!rt.tick()) fiber::sleep_for(rt.tick_interval());
      stop.request_stop();  // cancels accept and every connection's pending I/O
    }).detach();
    scheduler->spawn([&] { accept_loop(rt, *scheduler, *listener, stop.get_token()); }).detach();
    if (unix_listener) {  // --unixsocket
      scheduler->spawn([&] { accept_loop(rt, *scheduler, *unix_listener, stop.get_token()); }).detach();
    }
    scheduler->run();
    rt.on_stopped();
    return 0;
  });
}
