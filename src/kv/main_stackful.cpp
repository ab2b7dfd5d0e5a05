// duet-kv-stackful: the KV server driven by the stackful voice (fibers with
// plain blocking calls). Same core, same ServerRuntime as duet-kv-stackless.
#include <optional>
#include <stop_token>
#include <type_traits>
#include <memory>

#include "kv/aof/aof_wait_fiber.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"
#include "stackful/scheduler.hpp"
#include "stackful/sleep.hpp"
#include "stackful/tcp_listener.hpp"
#include "stackful/tls_stream.hpp"

namespace {

using namespace duet;
using kv::ServerRuntime;

// One loop for both ports: Stream is fiber::TcpStream or fiber::TlsStream
// (whose recv decrypts into a buffer of the connection's own).
template <typename Stream>
void serve(ServerRuntime& rt, Stream conn, std::stop_token stop) {
  constexpr bool tls = std::is_same_v<Stream, fiber::TlsStream>;
  kv::Session session(rt.state(), conn.native_handle());
  // Left uninitialised: a read touches only the pages its plaintext fills.
  auto plain = std::make_unique_for_overwrite<char[]>(tls ? TlsEngine::max_plaintext : 0);
  bool open = true;
  if constexpr (tls) {
    auto hs = conn.handshake(ServerRuntime::tls_handshake_timeout, stop);
    if (!hs) rt.on_tls_error(hs.error(), conn.error_message());
    open = hs.ok();
  }
  while (open) {
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
    if constexpr (tls) {
      auto n = conn.recv({plain.get(), TlsEngine::max_plaintext}, stop);
      if (!n) break;
      session.feed({plain.get(), *n});
    } else {
      auto in = conn.recv_pooled(stop);
      if (!in) break;
      session.feed(in->bytes());
    }
  }
  rt.on_disconnect();
}

// tls: the listener is the TLS port's; its connections are wrapped in TlsStream.
void accept_loop(ServerRuntime& rt, fiber::Scheduler& scheduler, fiber::TcpListener& listener, std::stop_token stop,
                 bool tls) {
  while (!stop.stop_requested()) {
    auto conn = listener.accept(stop);
    if (!conn) {
      fiber::sleep_for(rt.on_accept_error(conn.error(), listener.native_handle()), stop);
    } else if (tls && rt.admit(conn->native_handle())) {
      fiber::TlsStream stream(std::move(*conn), *rt.tls_context());
      scheduler.spawn(serve<fiber::TlsStream>, std::ref(rt), std::move(stream), stop).detach();
    } else if (!tls && rt.admit(conn->native_handle())) {
      scheduler.spawn(serve<fiber::TcpStream>, std::ref(rt), std::move(*conn), stop).detach();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return ServerRuntime::main(argc, argv, "stackful", [](ServerRuntime& rt) {
    std::optional<fiber::Scheduler> scheduler;
    rt.open_backend([&](Backend b) { scheduler.emplace(fiber::SchedulerOptions{.backend = b}); });
    std::optional<fiber::TcpListener> listener;
    std::optional<fiber::TcpListener> tls_listener;
    if (rt.plain_port()) rt.bind_listener([&](const SocketAddress& a) { listener.emplace(fiber::TcpListener::bind(a)); });
    if (rt.tls_context()) rt.bind_tls_listener([&](const SocketAddress& a) { tls_listener.emplace(fiber::TcpListener::bind(a)); });
    rt.start_aof(scheduler->loop());
    if (listener) rt.on_listening(listener->local_address());
    if (tls_listener) rt.on_listening_tls(tls_listener->local_address());
    std::stop_source stop;
    scheduler->spawn([&] {
      while (!rt.tick()) fiber::sleep_for(rt.tick_interval());
      stop.request_stop();  // cancels accept and every connection's pending I/O
    }).detach();
    if (listener) scheduler->spawn([&] { accept_loop(rt, *scheduler, *listener, stop.get_token(), false); }).detach();
    if (tls_listener) scheduler->spawn([&] { accept_loop(rt, *scheduler, *tls_listener, stop.get_token(), true); }).detach();
    scheduler->run();
    rt.on_stopped();
    return 0;
  });
}
