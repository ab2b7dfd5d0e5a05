// duet-kv-stackful: the KV server driven by the stackful voice (fibers with
// plain blocking calls). Same core, same ServerRuntime as duet-kv-stackless.
#include <optional>
#include <stop_token>

#include "kv/aof/aof_wait_fiber.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"
#include "stackful/scheduler.hpp"
#include "stackful/sleep.hpp"
#include "stackful/tcp_listener.hpp"

namespace {

using namespace duet;
using kv::ServerRuntime;

void serve(ServerRuntime& rt, fiber::TcpStream conn, std::stop_token stop) {
  kv::Session session(rt.state(), conn.native_handle());
  for (;;) {
    if (auto out = session.output(); !out.empty()) {
      kv::wait_durable(rt.aof());  // replies leave once their writes are logged (group commit)
      if (!conn.send_all(out, stop)) break;
      session.consume_output(out.size());
    }
    if (session.closing()) break;
    if (!session.wants_input()) {  // over the output limit: drained, now run the rest
      session.process();
      continue;
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
