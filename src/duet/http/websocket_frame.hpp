// duet::WsFrameParser — RFC 6455 frames, bytes in, headers and payload pieces
// out, and the writing side: a frame's header into a small buffer, masking.
//
// Contract
// - Sans-I/O, written once for both voices. parse(input) takes the caller's
//   received bytes (any split: one byte at a time works) and advances `input`
//   past what it used. It returns need_more (input used up), header (a frame
//   began: header()), payload (a piece of its payload: piece(), unmasked in
//   place in the caller's buffer, so a view, never a copy) or error (error():
//   the close code to fail the connection with). frame_done() tells whether
//   the frame's payload has been handed over completely (a zero-length frame
//   is done at its header).
// - The parser keeps only an unfinished header (at most 14 bytes), so the
//   caller may reuse its buffer whenever parse() returns need_more.
// - What it checks is what a frame alone can break (RFC 6455 §5): the masking
//   rule of its role (a server fails unmasked frames, a client masked ones),
//   reserved opcodes, RSV bits the extensions did not allow, control frames
//   over 125 bytes or fragmented, lengths not in their minimal form or with
//   the 64-bit length's top bit set — all with close code 1002. Which frame
//   may follow which (continuations, messages) is WsReader's job.
// - One parser per connection, one thread; no allocation.
//
//   duet::WsFrameParser p(duet::WsRole::server);
//   std::span<char> in = received;
//   for (auto s = p.parse(in); s != duet::WsFrameParser::Status::need_more; s = p.parse(in)) ...
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "duet/http/websocket_close.hpp"

namespace duet {

enum class WsOpcode : std::uint8_t { continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10 };

// Which end of the connection this is: it decides the masking rules.
enum class WsRole : std::uint8_t { server, client };

[[nodiscard]] constexpr bool ws_is_control(WsOpcode op) noexcept { return (static_cast<unsigned>(op) & 0x8U) != 0; }

using WsMaskKey = std::array<unsigned char, 4>;

struct WsFrameHeader {
  bool fin = true;
  bool rsv1 = false;  // permessage-deflate: "this message is compressed", on its first frame only
  bool rsv2 = false;
  bool rsv3 = false;
  WsOpcode opcode = WsOpcode::binary;
  bool masked = false;
  WsMaskKey mask{};
  std::uint64_t length = 0;
};

// A frame's header is 2 to 14 bytes: 2, +2 or +8 for the length, +4 for a mask.
inline constexpr std::size_t ws_max_header_size = 14;
// A control frame's payload (RFC 6455 §5.5).
inline constexpr std::size_t ws_max_control_payload = 125;

// Writes `header` (its length field in minimal form) into `out`; returns its size.
std::size_t ws_write_header(const WsFrameHeader& header, std::span<char, ws_max_header_size> out) noexcept;

// XORs `data` with `key`, `data[0]` taking the key byte at `offset % 4`:
// masking and unmasking are the same operation, and a payload may be done in
// pieces by passing each piece's offset in the payload.
void ws_mask(std::span<char> data, const WsMaskKey& key, std::uint64_t offset = 0) noexcept;

class WsFrameParser {
 public:
  enum class Status : std::uint8_t { need_more, header, payload, error };

  explicit WsFrameParser(WsRole role) noexcept : role_(role) {}

  // RSV1 is allowed once permessage-deflate is negotiated (WsReader checks
  // which frames may carry it); RSV2 and RSV3 have no extension here.
  void allow_rsv1(bool yes) noexcept { allow_rsv1_ = yes; }

  [[nodiscard]] Status parse(std::span<char>& input) noexcept;

  [[nodiscard]] const WsFrameHeader& header() const noexcept { return header_; }
  [[nodiscard]] std::span<char> piece() const noexcept { return piece_; }
  [[nodiscard]] bool frame_done() const noexcept { return !in_payload_; }
  [[nodiscard]] std::uint64_t payload_remaining() const noexcept { return remaining_; }
  [[nodiscard]] const WsError& error() const noexcept { return error_; }

 private:
  Status parse_header(std::span<char>& input) noexcept;
  Status decode_header(const unsigned char* bytes) noexcept;
  Status fail(std::string_view reason) noexcept;

  WsRole role_;
  bool allow_rsv1_ = false;
  bool in_payload_ = false;
  bool failed_ = false;
  std::uint8_t kept_ = 0;  // bytes of an unfinished header in head_
  std::array<unsigned char, ws_max_header_size> head_{};
  WsFrameHeader header_;
  std::uint64_t remaining_ = 0;  // payload bytes still to come
  std::uint64_t offset_ = 0;     // payload bytes handed over (the mask's position)
  std::span<char> piece_;
  WsError error_;
};

}  // namespace duet
