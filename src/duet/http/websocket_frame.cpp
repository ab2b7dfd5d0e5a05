// The frame codec. A header is decoded in place when the caller's buffer holds
// all of it (the common case: one recv brings whole frames); only a header
// split across receives is gathered in head_, at most 14 bytes.
#include "duet/http/websocket_frame.hpp"

#include <algorithm>
#include <cstring>

namespace duet {
namespace {

// The size of the header that starts with these two bytes.
std::size_t header_size(unsigned char b1) noexcept {
  std::size_t size = 2;
  const unsigned len7 = b1 & 0x7FU;
  if (len7 == 126) size += 2;
  if (len7 == 127) size += 8;
  if ((b1 & 0x80U) != 0) size += 4;
  return size;
}

bool reserved_opcode(unsigned op) noexcept { return (op >= 3 && op <= 7) || op >= 11; }

}  // namespace

std::size_t ws_write_header(const WsFrameHeader& h, std::span<char, ws_max_header_size> out) noexcept {
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  p[0] = static_cast<unsigned char>((h.fin ? 0x80U : 0U) | (h.rsv1 ? 0x40U : 0U) | (h.rsv2 ? 0x20U : 0U) |
                                    (h.rsv3 ? 0x10U : 0U) | static_cast<unsigned>(h.opcode));
  const unsigned char mask_bit = h.masked ? 0x80U : 0U;
  std::size_t n = 2;
  if (h.length < 126) {
    p[1] = static_cast<unsigned char>(mask_bit | h.length);
  } else if (h.length <= 0xFFFF) {
    p[1] = mask_bit | 126U;
    p[2] = static_cast<unsigned char>(h.length >> 8);
    p[3] = static_cast<unsigned char>(h.length);
    n = 4;
  } else {
    p[1] = mask_bit | 127U;
    for (int i = 0; i < 8; ++i) p[2 + i] = static_cast<unsigned char>(h.length >> (56 - 8 * i));
    n = 10;
  }
  if (h.masked) {
    std::memcpy(p + n, h.mask.data(), 4);
    n += 4;
  }
  return n;
}

void ws_mask(std::span<char> data, const WsMaskKey& key, std::uint64_t offset) noexcept {
  // Rotate the key so that data[0] meets key[offset % 4], then XOR eight bytes
  // at a time (the compiler vectorises the word loop; memcpy keeps it legal
  // for any alignment).
  unsigned char k[4];
  for (std::size_t i = 0; i < 4; ++i) k[i] = key[(offset + i) % 4];
  std::uint32_t k32 = 0;
  std::memcpy(&k32, k, 4);
  const std::uint64_t k64 = (static_cast<std::uint64_t>(k32) << 32) | k32;
  char* p = data.data();
  std::size_t n = data.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i, 8);
    w ^= k64;
    std::memcpy(p + i, &w, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<char>(static_cast<unsigned char>(p[i]) ^ k[i % 4]);
}

WsFrameParser::Status WsFrameParser::fail(std::string_view reason) noexcept {
  failed_ = true;
  error_ = {static_cast<std::uint16_t>(WsCloseCode::protocol_error), reason};
  return Status::error;
}

WsFrameParser::Status WsFrameParser::parse(std::span<char>& input) noexcept {
  if (failed_) return Status::error;
  if (!in_payload_) return parse_header(input);
  if (input.empty()) return Status::need_more;
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, input.size()));
  piece_ = input.first(n);
  input = input.subspan(n);
  if (header_.masked) ws_mask(piece_, header_.mask, offset_);
  offset_ += n;
  remaining_ -= n;
  in_payload_ = remaining_ != 0;
  return Status::payload;
}

WsFrameParser::Status WsFrameParser::parse_header(std::span<char>& input) noexcept {
  piece_ = {};
  if (kept_ == 0 && input.size() >= 2) {
    const auto* b = reinterpret_cast<const unsigned char*>(input.data());
    const std::size_t size = header_size(b[1]);
    if (input.size() >= size) {  // the whole header is here: decode it where it lies
      input = input.subspan(size);
      return decode_header(b);
    }
  }
  // Gather a split header: first its two fixed bytes, then what they announce.
  while (!input.empty()) {
    const std::size_t want = kept_ < 2 ? 2 : header_size(head_[1]);
    const std::size_t take = std::min(want - kept_, input.size());
    std::memcpy(head_.data() + kept_, input.data(), take);
    kept_ = static_cast<std::uint8_t>(kept_ + take);
    input = input.subspan(take);
    if (kept_ >= 2 && kept_ == header_size(head_[1])) {
      kept_ = 0;
      return decode_header(head_.data());
    }
  }
  return Status::need_more;
}

WsFrameParser::Status WsFrameParser::decode_header(const unsigned char* b) noexcept {
  WsFrameHeader& h = header_;
  h.fin = (b[0] & 0x80U) != 0;
  h.rsv1 = (b[0] & 0x40U) != 0;
  h.rsv2 = (b[0] & 0x20U) != 0;
  h.rsv3 = (b[0] & 0x10U) != 0;
  const unsigned op = b[0] & 0x0FU;
  h.opcode = static_cast<WsOpcode>(op);
  h.masked = (b[1] & 0x80U) != 0;
  const unsigned len7 = b[1] & 0x7FU;
  std::size_t pos = 2;
  if (len7 == 126) {
    h.length = (static_cast<std::uint64_t>(b[2]) << 8) | b[3];
    pos = 4;
    if (h.length < 126) return fail("frame length not in its minimal form");
  } else if (len7 == 127) {
    h.length = 0;
    for (int i = 0; i < 8; ++i) h.length = (h.length << 8) | b[2 + i];
    pos = 10;
    if ((h.length >> 63) != 0) return fail("frame length has its most significant bit set");
    if (h.length <= 0xFFFF) return fail("frame length not in its minimal form");
  } else {
    h.length = len7;
  }
  if (h.masked) std::memcpy(h.mask.data(), b + pos, 4);
  if (reserved_opcode(op)) return fail("reserved opcode");
  if (h.rsv2 || h.rsv3 || (h.rsv1 && !allow_rsv1_)) return fail("reserved bit set without an extension");
  if (role_ == WsRole::server && !h.masked) return fail("client frame not masked");
  if (role_ == WsRole::client && h.masked) return fail("server frame masked");
  if (ws_is_control(h.opcode)) {
    if (!h.fin) return fail("fragmented control frame");
    if (h.length > ws_max_control_payload) return fail("control frame payload over 125 bytes");
  }
  remaining_ = h.length;
  offset_ = 0;
  in_payload_ = h.length != 0;
  return Status::header;
}

}  // namespace duet
