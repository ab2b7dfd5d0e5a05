#include "duet/http/websocket_close.hpp"

#include <algorithm>
#include <cstring>

#include "duet/http/websocket_utf8.hpp"

namespace duet {

WsCloseParse parse_close_payload(std::span<const char> payload) noexcept {
  if (payload.empty()) return WsClose{};
  if (payload.size() == 1) return WsError{static_cast<std::uint16_t>(WsCloseCode::protocol_error), "close payload of one byte"};
  const auto* b = reinterpret_cast<const unsigned char*>(payload.data());
  const auto code = static_cast<std::uint16_t>((b[0] << 8) | b[1]);
  if (!ws_close_code_sendable(code)) {
    return WsError{static_cast<std::uint16_t>(WsCloseCode::protocol_error), "invalid close code"};
  }
  const std::string_view reason(payload.data() + 2, payload.size() - 2);
  if (!is_valid_utf8(reason)) {
    return WsError{static_cast<std::uint16_t>(WsCloseCode::invalid_payload), "close reason is not UTF-8"};
  }
  return WsClose{code, reason};
}

std::size_t write_close_payload(const WsClose& close, std::span<char, 125> out) noexcept {
  if (close.code == static_cast<std::uint16_t>(WsCloseCode::no_status)) return 0;
  const std::uint16_t code =
      ws_close_code_sendable(close.code) ? close.code : static_cast<std::uint16_t>(WsCloseCode::internal_error);
  out[0] = static_cast<char>(code >> 8);
  out[1] = static_cast<char>(code & 0xFF);
  std::size_t n = std::min<std::size_t>(close.reason.size(), out.size() - 2);
  // Cut before a continuation byte, never inside a character.
  if (n < close.reason.size()) {
    while (n > 0 && (static_cast<unsigned char>(close.reason[n]) & 0xC0U) == 0x80U) --n;
  }
  if (n != 0) std::memcpy(out.data() + 2, close.reason.data(), n);  // an empty view's data() may be null
  return 2 + n;
}

}  // namespace duet
