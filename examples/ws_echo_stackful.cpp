// ws_echo_stackful — a WebSocket echo server in the stackful voice.
//
//   ws_echo_stackful [--port 8081] [--backend io_uring|epoll]
//   python3 -m websockets ws://127.0.0.1:8081/      (type a line: it comes back)
//
// Each connection gets its own fiber, detached: it answers the upgrade
// (accepting permessage-deflate when offered), then sends every message back,
// text as text and binary as binary; pings are answered and closes echoed by
// duet::fiber::WebSocket itself. SIGINT or SIGTERM stops the accepts and
// closes every connection with 1001 (going away); the scheduler returns once
// the last fiber has.
#include <csignal>
#include <cstdio>
#include <functional>
#include <stop_token>
#include <string_view>

#include "server_flags.hpp"

#include <duet/io/event_loop.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/signal_set.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/stackful/websocket.hpp>
#include <duet/stackful/when_any.hpp>

namespace {

void echo(duet::fiber::TcpStream conn, std::stop_token stop) {
  duet::WsOptions options;
  options.session.deflate.enabled = true;  // accept permessage-deflate when the client offers it
  auto ws = duet::fiber::ws_accept(std::move(conn), options, stop);
  if (!ws) return;  // refused (400/426 sent), timed out or stopped: the stream is closed
  for (auto m = ws->receive({}, stop); m; m = ws->receive({}, stop)) {
    auto sent = m->is_text() ? ws->send_text(m->data()) : ws->send_binary(m->payload);
    if (!sent) return;
  }  // the peer closed (echoed), broke the protocol (our close sent), or we are stopping
  if (stop.stop_requested()) (void)ws->close(1001, "server shutting down");
}

void accept_clients(duet::fiber::TcpListener& listener, std::stop_token stop, std::stop_token sessions) {
  while (!stop.stop_requested()) {
    auto conn = listener.accept(stop);
    if (conn) {
      duet::fiber::spawn(echo, std::move(*conn), sessions).detach();
    } else if (conn.error() == std::errc::too_many_files_open) {
      duet::fiber::sleep_for(std::chrono::milliseconds(10), stop);  // back off, do not spin
    }
  }
}

void serve(duet::EventLoop& loop, duet::fiber::SignalSet& signals, std::uint16_t port) {
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::any(port));
  std::printf("ws_echo on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  std::stop_source sessions;  // its state outlives serve: the sessions hold tokens
  duet::fiber::when_any([&](std::stop_token stop) { accept_clients(listener, stop, sessions.get_token()); },
                        [&](std::stop_token stop) { return signals.wait(stop); });  // SIGINT or SIGTERM
  sessions.request_stop();  // each connection closes with 1001
}

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8081, "ws_echo_stackful");
  if (flags.threads != 1) examples::usage("ws_echo_stackful", "one thread only (no --threads)");
  const std::uint16_t port = flags.port;
  const duet::Backend backend = flags.backend;
  duet::fiber::Scheduler scheduler({.backend = backend});
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});  // blocked, then read through the loop
  scheduler.spawn(serve, std::ref(scheduler.loop()), std::ref(signals), port).detach();
  scheduler.run();
  std::printf("ws_echo stopped\n");
}
