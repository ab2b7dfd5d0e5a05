// ws_echo_stackless — a WebSocket echo server in the stackless voice.
//
//   ws_echo_stackless [--port 8081] [--backend io_uring|epoll]
//   python3 -m websockets ws://127.0.0.1:8081/      (type a line: it comes back)
//
// Each connection gets its own task in a TaskScope: it answers the upgrade
// (accepting permessage-deflate when offered), then sends every message back,
// text as text and binary as binary; pings are answered and closes echoed by
// duet::WebSocket itself. SIGINT or SIGTERM stops the accepts and closes every
// connection with 1001 (going away), then the program returns.
#include <csignal>
#include <cstdio>
#include <stop_token>
#include <string_view>

#include "server_flags.hpp"

#include <duet/io/event_loop.hpp>
#include <duet/task/run.hpp>
#include <duet/task/signal_set.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tcp_stream.hpp>
#include <duet/task/websocket.hpp>
#include <duet/task/when_any.hpp>

namespace {

duet::Task<void> echo(duet::TcpStream conn, std::stop_token stop) {
  duet::WsOptions options;
  options.session.deflate.enabled = true;  // accept permessage-deflate when the client offers it
  auto ws = co_await duet::ws_accept(std::move(conn), options, stop);
  if (!ws) co_return;  // refused (400/426 sent), timed out or stopped: the stream is closed
  for (;;) {
    auto m = co_await ws->receive({}, stop);
    if (!m) break;  // the peer closed (echoed), broke the protocol (our close sent), or we are stopping
    duet::IoResult<void> sent;
    if (m->is_text()) sent = co_await ws->send_text(m->data());
    else sent = co_await ws->send_binary(m->payload);
    if (!sent) co_return;
  }
  if (stop.stop_requested()) {
    auto closed = co_await ws->close(1001, "server shutting down");  // waits close_timeout at most
    (void)closed;
  }
}

duet::Task<void> accept_clients(duet::EventLoop& loop, duet::TcpListener& listener, duet::TaskScope& scope,
                                std::stop_token stop, std::stop_token sessions) {
  while (!stop.stop_requested()) {
    auto conn = co_await listener.accept(stop);
    if (conn) {
      scope.spawn(echo(std::move(*conn), sessions));
    } else if (conn.error() == std::errc::too_many_files_open) {
      co_await duet::sleep_for(loop, std::chrono::milliseconds(10), stop);  // back off, do not spin
    }
  }
}

duet::Task<void> serve(duet::EventLoop& loop, duet::SignalSet& signals, std::uint16_t port) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(port));
  std::printf("ws_echo on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  duet::TaskScope scope;
  std::stop_source stop, sessions;
  co_await duet::when_any(stop, accept_clients(loop, listener, scope, stop.get_token(), sessions.get_token()),
                          signals.wait_task(stop.get_token()));  // SIGINT or SIGTERM ends the accepts
  sessions.request_stop();  // each connection closes with 1001
  co_await scope.join();
}

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8081, "ws_echo_stackless");
  if (flags.threads != 1) examples::usage("ws_echo_stackless", "one thread only (no --threads)");
  const std::uint16_t port = flags.port;
  const duet::Backend backend = flags.backend;
  duet::EventLoop loop(backend);
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});  // blocked, then read through the loop
  duet::run_until_complete(loop, serve(loop, signals, port));
  std::printf("ws_echo stopped\n");
}
