// duet::WsReader — the receiving half of a WebSocket connection: frames in,
// messages, pings, pongs and the peer's close out (RFC 6455 §5-§7, RFC 7692).
//
// Contract
// - next(input) takes the caller's received bytes (mutable: client frames
//   are unmasked in place) and advances `input` past what it used. It returns
//   one event: need_more (input used up: receive more), message (a whole
//   text or binary message), ping, pong, close (the peer's close frame: code
//   and reason) or error (the close code and words to fail with). Call it
//   again with the rest of `input` until need_more.
// - Everything it was given is consumed by the time it says need_more
//   (partial frames are kept inside), so the caller may reuse its buffer then.
// - No copy on the fast path: a message that arrives in one unfragmented,
//   uncompressed frame whose bytes are all in `input` is a view of `input`.
//   Otherwise (fragments, a frame split over receives, compression) the
//   message is gathered in the reader's buffer, bounded by max_message_size
//   (1009 beyond it, found from the frame header before its payload, and for
//   compressed messages while inflating: a zip bomb costs at most the limit).
//   Views are valid until the next call (and, for the fast path, while the
//   caller's bytes stay where they are). A buffer grown past 64 KiB is freed
//   when the next message begins, so a big message does not stay resident.
// - Checks, each with its close code: frame rules (WsFrameParser, 1002); a
//   continuation with no message, a new message inside one, RSV1 on a
//   control frame or a continuation (1002); text that is not UTF-8, found as
//   early as the bytes arrive, across fragments (1007); a bad close payload
//   (1002/1007); compressed data that does not inflate (1007).
// - After close or error it reads nothing more (input is dropped; the same
//   error again). What to send back is WsSession's decision.
// - One reader per connection; one thread.
//
//   duet::WsReader r(duet::WsRole::server, 1 << 20);
//   std::span<char> in = received;
//   for (auto e = r.next(in); e.kind != duet::WsEvent::Kind::need_more; e = r.next(in)) handle(e);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "duet/http/websocket_close.hpp"
#include "duet/http/websocket_deflate.hpp"
#include "duet/http/websocket_extension.hpp"
#include "duet/http/websocket_frame.hpp"
#include "duet/http/websocket_utf8.hpp"

namespace duet {

struct WsEvent {
  enum class Kind : std::uint8_t { need_more, message, ping, pong, close, error };
  Kind kind = Kind::need_more;
  WsOpcode opcode = WsOpcode::binary;  // message: text or binary
  std::span<const char> payload;       // message, ping, pong: the data; close: the frame's payload
  WsClose close;                       // close: the peer's code (1005 when none) and reason
  WsError error;                       // error: the code to close with, and why
  std::span<const char> reply;         // WsSession: a frame to send now (pong, close), else empty

  // The payload as text or bytes, for what takes a string_view.
  [[nodiscard]] std::string_view data() const noexcept { return {payload.data(), payload.size()}; }
};

class WsReader {
 public:
  static constexpr std::size_t keep_capacity = 64 * 1024;

  // `deflate`: what the handshake agreed, if it agreed permessage-deflate.
  WsReader(WsRole role, std::size_t max_message_size, const std::optional<WsDeflateParams>& deflate = std::nullopt);

  [[nodiscard]] WsEvent next(std::span<char>& input);

  [[nodiscard]] bool close_received() const noexcept { return close_received_; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] std::size_t max_message_size() const noexcept { return max_; }

 private:
  WsEvent on_header(std::span<const char> rest);
  WsEvent on_payload(std::span<char> piece);
  WsEvent on_frame_end();
  WsEvent finish_message();
  WsEvent fail(WsError error);
  WsEvent fail(WsCloseCode code, std::string_view reason) { return fail(WsError{static_cast<std::uint16_t>(code), reason}); }
  WsEvent inflate(std::span<const char> piece, bool last);
  bool check_text(std::span<const char> bytes);

  WsRole role_;
  std::size_t max_;
  WsFrameParser parser_;
  std::optional<WsInflater> inflater_;
  bool failed_ = false;
  bool close_received_ = false;
  bool in_message_ = false;  // a data message has begun and not ended
  bool compressed_ = false;  // it had RSV1
  bool direct_ = false;      // its one frame is being handed over as a view of the input
  WsOpcode opcode_ = WsOpcode::binary;
  std::uint64_t size_ = 0;   // its payload bytes so far (compressed ones for a compressed message)
  std::span<const char> direct_view_;
  std::string message_;
  Utf8Validator utf8_;
  std::uint8_t control_size_ = 0;
  std::array<char, ws_max_control_payload> control_{};
  WsError error_;
};

}  // namespace duet
