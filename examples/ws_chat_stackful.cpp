// ws_chat_stackful — the chat room over WebSocket, in the stackful voice:
// duet::fiber::HttpServer serves a page at GET / and takes /chat over as a
// WebSocket, each connection on a fiber of its own.
//
//   ws_chat_stackful [--port 8082] [--backend io_uring|epoll]
//   open http://127.0.0.1:8082/ in a few browser tabs, or:
//   python3 -m websockets ws://127.0.0.1:8082/chat
//
// The same room and the same member loop as ws_chat_stackless (read its
// comment): one loop per member, as a WebSocket takes one call at a time,
// woken from its receive when a line is queued for it; 1009 past max_line
// bytes, 1003 for binary; SIGINT or SIGTERM closes every member with 1001.
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <stop_token>
#include <string>

#include "chat_room.hpp"
#include "server_flags.hpp"
#include "ws_chat.hpp"

#include <duet/stackful/channel.hpp>
#include <duet/stackful/http_server.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/signal_set.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/when_any.hpp>

namespace {

using Member = chat::Member<duet::fiber::Channel<chat::Line>>;
using Room = chat::Room<Member>;
using WebSocket = duet::fiber::WebSocket<duet::fiber::TcpStream>;
constexpr auto send_timeout = std::chrono::seconds(10);
constexpr int kernel_buffer = 64 * 1024;  // SO_SNDBUF: else the kernel buffers up to 4 MiB per member

duet::http::Response page(duet::http::Request&) {
  return duet::http::Response::text(200, std::string(chat::page), "text/html; charset=utf-8");
}

// What the outbox holds goes out; false once the connection cannot take it.
bool deliver(Member& me, WebSocket& ws) {
  while (auto line = me.outbox_.try_recv()) {
    if (!ws.send_text(**line, send_timeout, me.stop_.get_token())) return false;
  }
  return true;
}

void member(Room& room, duet::http::Request& req, WebSocket ws) {
  Member me;
  ::setsockopt(ws.stream().native_handle(), SOL_SOCKET, SO_SNDBUF, &kernel_buffer, sizeof(kernel_buffer));
  room.join(me);
  std::stop_callback on_server_stop(req.stop_token(), [&me] { me.stop(); });
  std::uint16_t code = chat::going_away;
  while (!me.stop_.stop_requested()) {
    me.wake_ = std::stop_source();  // renewed before delivering: a line queued meanwhile wakes the receive
    if (!deliver(me, ws)) {
      code = chat::no_close;  // a failed send closed the connection
      break;
    }
    if (auto end = chat::after_receive(room, me, ws.receive({}, me.wake_.get_token()))) {
      code = *end;
      break;
    }
  }
  room.leave(me);
  if (code != chat::no_close) (void)ws.close(code, chat::close_reason(code));  // close_timeout at most
}

void serve(duet::EventLoop& loop, duet::fiber::SignalSet& signals, duet::fiber::HttpServer& server,
           std::uint16_t port) {
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::any(port));
  std::printf("ws_chat on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  // SIGINT or SIGTERM stops the token, and the server stops gracefully.
  duet::fiber::when_any([&](std::stop_token stop) { server.serve(listener, stop); },
                        [&](std::stop_token stop) { return signals.wait(stop); });
}

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8082, "ws_chat_stackful");
  if (flags.threads != 1) examples::usage("ws_chat_stackful", "one thread only (no --threads)");
  Room room;  // outlives every member
  duet::WsOptions options;
  options.session.max_message_size = chat::max_line;  // 1009 past it
  duet::fiber::HttpServer server;
  server.get("/", page);
  server.websocket("/chat", [&room](duet::http::Request& req, WebSocket ws) { member(room, req, std::move(ws)); },
                   options);
  duet::fiber::Scheduler scheduler({.backend = flags.backend});
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});  // blocked, then read through the loop
  scheduler.spawn(serve, std::ref(scheduler.loop()), std::ref(signals), std::ref(server), flags.port).detach();
  scheduler.run();
  std::printf("ws_chat stopped\n");
}
