// Test support for the WebSocket core: raw frames built by hand, and a feeder
// that gives a session its bytes whole, one byte at a time, or cut at seeded
// random points, each piece in a buffer of its own that is scribbled over as
// soon as the session says need_more (so a view kept too long shows).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "duet/http/websocket_session.hpp"

namespace ws_test {

inline std::string hex(std::string_view h) {
  std::string out;
  for (std::size_t i = 0; i < h.size();) {
    if (h[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

inline constexpr duet::WsMaskKey test_key{0x37, 0xfa, 0x21, 0x3d};

// A frame as a peer would send it: masked (a client's) unless told otherwise.
inline std::string frame(std::uint8_t opcode, std::string_view payload, bool fin = true, bool masked = true,
                         bool rsv1 = false, bool rsv2 = false, bool rsv3 = false) {
  duet::WsFrameHeader h;
  h.fin = fin;
  h.rsv1 = rsv1;
  h.rsv2 = rsv2;
  h.rsv3 = rsv3;
  h.opcode = static_cast<duet::WsOpcode>(opcode);
  h.masked = masked;
  h.mask = test_key;
  h.length = payload.size();
  std::array<char, duet::ws_max_header_size> head{};
  std::string out(head.data(), duet::ws_write_header(h, head));
  std::string body(payload);
  if (masked) duet::ws_mask(body, test_key);
  return out + body;
}

// One event, copied out of the session's views.
struct Rec {
  duet::WsEvent::Kind kind;
  duet::WsOpcode opcode;
  std::string payload;
  std::uint16_t code;
  std::string reason;
  std::string reply;
  bool operator==(const Rec&) const = default;
};

inline Rec record(const duet::WsEvent& e) {
  Rec r{e.kind, e.opcode, std::string(e.payload.begin(), e.payload.end()), 0, {}, std::string(e.reply.begin(), e.reply.end())};
  if (e.kind == duet::WsEvent::Kind::close) {
    r.code = e.close.code;
    r.reason = std::string(e.close.reason);
  }
  if (e.kind == duet::WsEvent::Kind::error) {
    r.code = e.error.code;
    r.reason = std::string(e.error.reason);
  }
  if (e.kind != duet::WsEvent::Kind::message) r.opcode = duet::WsOpcode::binary;
  // A client's reply is masked with a random key: record it unmasked, with a
  // zero key, so that runs compare (the mask bit stays).
  if (r.reply.size() >= 6 && (static_cast<unsigned char>(r.reply[1]) & 0x80U) != 0) {
    duet::WsMaskKey key;
    std::memcpy(key.data(), r.reply.data() + 2, 4);
    std::span<char> body(r.reply.data() + 6, r.reply.size() - 6);
    duet::ws_mask(body, key);
    r.reply.replace(2, 4, 4, '\0');
  }
  return r;
}

// Feeds `bytes` cut into the given piece sizes; returns every event.
inline std::vector<Rec> feed_pieces(duet::WsSession& s, std::string_view bytes, const std::vector<std::size_t>& sizes) {
  std::vector<Rec> out;
  std::size_t pos = 0;
  for (const std::size_t n : sizes) {
    std::string piece(bytes.substr(pos, n));
    pos += n;
    std::span<char> in(piece);
    for (;;) {
      const duet::WsEvent e = s.next(in);
      if (e.kind == duet::WsEvent::Kind::need_more) break;
      out.push_back(record(e));
    }
    piece.assign(piece.size(), '\x5a');  // the buffer is the driver's again
  }
  return out;
}

enum class Split { whole, bytewise, random };

inline std::vector<std::size_t> split_sizes(std::size_t total, Split how, std::uint64_t seed) {
  std::vector<std::size_t> sizes;
  if (how == Split::whole) {
    sizes.push_back(total);
  } else if (how == Split::bytewise) {
    sizes.assign(total, 1);
  } else {
    std::mt19937_64 rng(seed);
    for (std::size_t left = total; left > 0;) {
      const std::size_t n = std::min<std::size_t>(left, 1 + rng() % 23);
      sizes.push_back(n);
      left -= n;
    }
  }
  return sizes;
}

}  // namespace ws_test

namespace Catch {
template <>
struct StringMaker<ws_test::Rec> {
  static std::string convert(const ws_test::Rec& r) {
    return "{kind " + std::to_string(static_cast<int>(r.kind)) + " op " + std::to_string(static_cast<int>(r.opcode)) +
           " payload[" + std::to_string(r.payload.size()) + "] " + r.payload.substr(0, 40) + " code " +
           std::to_string(r.code) + " reason '" + r.reason + "' reply[" + std::to_string(r.reply.size()) + "]}";
  }
};
}  // namespace Catch
