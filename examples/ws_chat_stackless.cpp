// ws_chat_stackless — the chat room over WebSocket, in the stackless voice:
// duet::HttpServer serves a page at GET / and takes /chat over as a WebSocket.
//
//   ws_chat_stackless [--port 8082] [--backend io_uring|epoll]
//   open http://127.0.0.1:8082/ in a few browser tabs, or:
//   python3 -m websockets ws://127.0.0.1:8082/chat
//
// The room is the TCP chat's (chat_room.hpp): every text message goes to every
// other member, through a bounded outbox, so a member that stops reading is
// dropped and nobody stalls (its socket's send buffer capped at 64 KiB, as
// the TCP chat's). A WebSocket takes one call at a time, so each
// member is one loop: send what its outbox holds, then receive until a message
// arrives or a line for it ends the wait (its wake_ token). A message past
// max_line bytes is refused with 1009 and a binary one with 1003. SIGINT or
// SIGTERM stops the server: members are closed with 1001, then it returns.
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <stop_token>
#include <string>

#include "chat_room.hpp"
#include "server_flags.hpp"
#include "ws_chat.hpp"

#include <duet/io/event_loop.hpp>
#include <duet/task/channel.hpp>
#include <duet/task/http_server.hpp>
#include <duet/task/run.hpp>
#include <duet/task/signal_set.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/when_any.hpp>

namespace {

using Member = chat::Member<duet::Channel<chat::Line>>;
using Room = chat::Room<Member>;
using WebSocket = duet::WebSocket<duet::TcpStream>;
constexpr auto send_timeout = std::chrono::seconds(10);
constexpr int kernel_buffer = 64 * 1024;  // SO_SNDBUF: else the kernel buffers up to 4 MiB per member

duet::Task<duet::http::Response> page(duet::http::Request&) {
  co_return duet::http::Response::text(200, std::string(chat::page), "text/html; charset=utf-8");
}

// What the outbox holds goes out; false once the connection cannot take it.
duet::Task<bool> deliver(Member& me, WebSocket& ws) {
  while (auto line = me.outbox_.try_recv()) {
    auto sent = co_await ws.send_text(**line, send_timeout, me.stop_.get_token());
    if (!sent) co_return false;
  }
  co_return true;
}

duet::Task<void> member(Room& room, duet::http::Request& req, WebSocket ws) {
  Member me(ws.stream().loop());
  ::setsockopt(ws.stream().native_handle(), SOL_SOCKET, SO_SNDBUF, &kernel_buffer, sizeof(kernel_buffer));
  room.join(me);
  std::stop_callback on_server_stop(req.stop_token(), [&me] { me.stop(); });
  std::uint16_t code = chat::going_away;
  while (!me.stop_.stop_requested()) {
    me.wake_ = std::stop_source();  // renewed before delivering: a line queued meanwhile wakes the receive
    const bool delivered = co_await deliver(me, ws);
    if (!delivered) {
      code = chat::no_close;  // a failed send closed the connection
      break;
    }
    auto m = co_await ws.receive({}, me.wake_.get_token());
    if (auto end = chat::after_receive(room, me, m)) {
      code = *end;
      break;
    }
  }
  room.leave(me);
  if (code != chat::no_close) {
    std::string_view reason = chat::close_reason(code);
    auto closed = co_await ws.close(code, reason);  // waits close_timeout at most
    (void)closed;
  }
}

duet::Task<void> serve(duet::EventLoop& loop, duet::SignalSet& signals, duet::HttpServer& server,
                       std::uint16_t port) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(port));
  std::printf("ws_chat on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  std::stop_source stop;  // SIGINT or SIGTERM stops it, and the server stops gracefully
  co_await duet::when_any(stop, server.serve(listener, stop.get_token()), signals.wait_task(stop.get_token()));
}

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8082, "ws_chat_stackless");
  if (flags.threads != 1) examples::usage("ws_chat_stackless", "one thread only (no --threads)");
  Room room;  // outlives every member
  duet::WsOptions options;
  options.session.max_message_size = chat::max_line;  // 1009 past it
  duet::HttpServer server;
  server.get("/", page);
  server.websocket(
      "/chat", [&room](duet::http::Request& req, WebSocket ws) { return member(room, req, std::move(ws)); }, options);
  duet::EventLoop loop(flags.backend);
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});  // blocked, then read through the loop
  duet::run_until_complete(loop, serve(loop, signals, server, flags.port));
  std::printf("ws_chat stopped\n");
}
