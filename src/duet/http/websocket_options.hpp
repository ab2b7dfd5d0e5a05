// duet::WsOptions / duet::WsMessage — what a WebSocket connection of either
// voice (duet::WebSocket, duet::fiber::WebSocket) takes and gives: one
// vocabulary for both, as the semantics behind them are written once
// (detail/websocket_connection_core.hpp).
//
// Contract
// - WsOptions: the session's limits and deflate settings (session.deflate.
//   enabled: a client offers permessage-deflate, a server accepts an offer),
//   the subprotocols (ours, in order of preference; the caller's array must
//   outlive the handshake call), the largest HTTP head the handshake reads,
//   and the two timeouts a connection applies by itself: the opening
//   handshake as a whole, and the closing handshake (waiting for the peer's
//   close after ours, and a client's wait for the server's EOF).
// - WsMessage: a received text or binary message; its payload is a view,
//   valid until the next call on the connection.
//
//   duet::WsOptions options;
//   options.session.max_message_size = 64 * 1024;
//   options.session.deflate.enabled = true;
//   auto ws = co_await duet::ws_accept(std::move(conn), options);
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string_view>

#include "duet/http/websocket_frame.hpp"
#include "duet/http/websocket_session.hpp"

namespace duet {

struct WsOptions {
  WsSessionOptions session;                        // max_message_size (1009 past it), deflate
  std::span<const std::string_view> subprotocols;  // offered (client) or accepted (server)
  std::size_t max_head_bytes = 16 * 1024;          // the upgrade request's or response's head
  std::chrono::nanoseconds handshake_timeout = std::chrono::seconds(10);  // 0: none
  std::chrono::nanoseconds close_timeout = std::chrono::seconds(5);       // 0: none
};

struct WsMessage {
  WsOpcode opcode = WsOpcode::binary;  // text or binary
  std::span<const char> payload;

  [[nodiscard]] bool is_text() const noexcept { return opcode == WsOpcode::text; }
  [[nodiscard]] std::string_view data() const noexcept { return {payload.data(), payload.size()}; }
};

}  // namespace duet
