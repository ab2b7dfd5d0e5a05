// duet::WsClose — the close frame's payload (RFC 6455 §5.5.1, §7.4): a status
// code and a UTF-8 reason; which codes may travel; WsError, why a connection fails.
//
// Contract
// - parse_close_payload() reads a received close frame's payload: empty is
//   "no status" (1005, nothing to echo); one byte, a code that may not be on
//   the wire (below 1000, 1004-1006, 1015, 1016-2999, 5000 and up) is 1002;
//   a reason that is not UTF-8 is 1007. The reason views the payload.
// - write_close_payload() writes a code and a reason (cut at a character
//   boundary to fit a control frame's 125 bytes) for sending.
// - Pure functions over the caller's bytes; any thread.
//
//   auto c = duet::parse_close_payload(payload);
//   if (!c) fail(c.error()); else log(c->code, c->reason);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace duet {

// The codes RFC 6455 §7.4.1 defines, and the three IANA registered since
// (1012-1014). no_status, abnormal and tls_handshake are never on the wire:
// they only report what happened.
enum class WsCloseCode : std::uint16_t {
  normal = 1000,
  going_away = 1001,
  protocol_error = 1002,
  unsupported_data = 1003,
  no_status = 1005,
  abnormal = 1006,
  invalid_payload = 1007,
  policy_violation = 1008,
  message_too_big = 1009,
  mandatory_extension = 1010,
  internal_error = 1011,
  service_restart = 1012,
  try_again_later = 1013,
  bad_gateway = 1014,
  tls_handshake = 1015,
};

// May this code be sent in a close frame? 1000-1003 and 1007-1014 (defined),
// 3000-3999 (registered by libraries), 4000-4999 (private use).
[[nodiscard]] constexpr bool ws_close_code_sendable(std::uint16_t code) noexcept {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

// Why a connection fails: the close code to send, and words for a log (static text).
struct WsError {
  std::uint16_t code = 0;
  std::string_view reason;
};

struct WsClose {
  std::uint16_t code = static_cast<std::uint16_t>(WsCloseCode::no_status);
  std::string_view reason;
};

// The result of parse_close_payload: a close, or the error that fails the connection.
class WsCloseParse {
 public:
  WsCloseParse(WsClose close) noexcept : close_(close) {}  // NOLINT: implicit by design
  WsCloseParse(WsError error) noexcept : error_(error), ok_(false) {}  // NOLINT
  explicit operator bool() const noexcept { return ok_; }
  const WsClose& operator*() const noexcept { return close_; }
  const WsClose* operator->() const noexcept { return &close_; }
  [[nodiscard]] const WsError& error() const noexcept { return error_; }

 private:
  WsClose close_;
  WsError error_;
  bool ok_ = true;
};

[[nodiscard]] WsCloseParse parse_close_payload(std::span<const char> payload) noexcept;

// Writes `close` into `out` and returns the payload's size: 0 for no_status
// (an empty close frame), else 2 + the reason (cut to 123 bytes on a
// character boundary). Any other code that may not be sent (1004, 1006, 1015,
// 2000, ...) is the caller's mistake: it goes out as 1011 (internal error), so
// nothing the peer must refuse reaches the wire.
std::size_t write_close_payload(const WsClose& close, std::span<char, 125> out) noexcept;

}  // namespace duet
