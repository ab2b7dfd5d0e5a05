// The closing handshake and the automatic replies: the only decisions a
// WebSocket connection makes without its user.
#include "duet/http/websocket_session.hpp"

namespace duet {

WsSession::WsSession(WsRole role, const WsSessionOptions& options, const std::optional<WsDeflateParams>& deflate)
    : role_(role), reader_(role, options.max_message_size, deflate), writer_(role, deflate, options.deflate) {}

WsEvent WsSession::next(std::span<char>& input) {
  if (state_ == WsState::closed) {
    input = {};
    return {};
  }
  WsEvent e = reader_.next(input);
  switch (e.kind) {
    case WsEvent::Kind::ping:
      if (state_ == WsState::open) e.reply = writer_.control(WsOpcode::pong, e.data());
      break;
    case WsEvent::Kind::close:
      // Echo the code (RFC 6455 §5.5.1): a close without one gets an empty close.
      if (state_ == WsState::open) e.reply = writer_.close(WsClose{e.close.code, {}});
      close_code_ = e.close.code;
      state_ = WsState::closed;
      break;
    case WsEvent::Kind::error:
      if (state_ == WsState::open) e.reply = writer_.close(WsClose{e.error.code, e.error.reason});
      close_code_ = e.error.code;
      state_ = WsState::closed;
      break;
    case WsEvent::Kind::need_more:
    case WsEvent::Kind::message:
    case WsEvent::Kind::pong:
      break;
  }
  return e;
}

WsOutFrame WsSession::message(WsOpcode op, std::string_view payload) {
  return can_send() ? writer_.message(op, payload) : WsOutFrame{};
}

WsOutFrame WsSession::message_in_place(WsOpcode op, std::span<char> payload) {
  return can_send() ? writer_.message_in_place(op, payload) : WsOutFrame{};
}

WsOutFrame WsSession::fragment(WsOpcode op, std::string_view payload, bool last) {
  return can_send() ? writer_.fragment(op, payload, last) : WsOutFrame{};
}

std::span<const char> WsSession::ping(std::string_view payload) {
  return can_send() ? writer_.control(WsOpcode::ping, payload) : std::span<const char>{};
}

std::span<const char> WsSession::close(std::uint16_t code, std::string_view reason) {
  if (!can_send()) return {};
  state_ = WsState::closing;
  return writer_.close(WsClose{code, reason});
}

}  // namespace duet
