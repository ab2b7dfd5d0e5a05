// The frame codec: RFC 6455 §5.7's example frames byte for byte, in both
// directions, fed whole, a byte at a time and cut at random; every frame rule
// with its close code.
#include <catch2/catch.hpp>

#include "http/websocket_feed.hpp"

using duet::WsEvent;
using duet::WsOpcode;
using duet::WsRole;
using duet::WsSession;
using ws_test::hex;
using ws_test::Rec;
using ws_test::Split;

namespace {

std::vector<Rec> feed(WsRole role, std::string_view bytes, Split how, std::uint64_t seed = 1,
                      duet::WsSessionOptions options = {}) {
  WsSession s(role, options);
  return ws_test::feed_pieces(s, bytes, ws_test::split_sizes(bytes.size(), how, seed));
}

// The same events whatever the split: whole, byte by byte, and 20 random cuts.
std::vector<Rec> feed_all_ways(WsRole role, std::string_view bytes, duet::WsSessionOptions options = {}) {
  const std::vector<Rec> whole = feed(role, bytes, Split::whole, 1, options);
  CHECK(feed(role, bytes, Split::bytewise, 1, options) == whole);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) CHECK(feed(role, bytes, Split::random, seed, options) == whole);
  return whole;
}

Rec message(WsOpcode op, std::string payload) { return Rec{WsEvent::Kind::message, op, std::move(payload), 0, {}, {}}; }

std::string write_header(const duet::WsFrameHeader& h) {
  std::array<char, duet::ws_max_header_size> out{};
  return {out.data(), duet::ws_write_header(h, out)};
}

}  // namespace

TEST_CASE("RFC 6455 example frames parse byte for byte, however the bytes are cut", "[websocket][frame]") {
  // §5.7: a single-frame unmasked text message (what a client receives).
  CHECK(feed_all_ways(WsRole::client, hex("81 05 48 65 6c 6c 6f")) == std::vector{message(WsOpcode::text, "Hello")});
  // A single-frame masked text message (what a server receives).
  CHECK(feed_all_ways(WsRole::server, hex("81 85 37 fa 21 3d 7f 9f 4d 51 58")) ==
        std::vector{message(WsOpcode::text, "Hello")});
  // A fragmented unmasked text message.
  CHECK(feed_all_ways(WsRole::client, hex("01 03 48 65 6c 80 02 6c 6f")) == std::vector{message(WsOpcode::text, "Hello")});
  // 256 bytes and 64 KiB binary messages in single unmasked frames.
  const std::string b256(256, '\x07');
  CHECK(feed_all_ways(WsRole::client, hex("82 7E 01 00") + b256) == std::vector{message(WsOpcode::binary, b256)});
  const std::string b64k(65536, '\x09');
  CHECK(feed(WsRole::client, hex("82 7F 00 00 00 00 00 01 00 00") + b64k, Split::whole) ==
        std::vector{message(WsOpcode::binary, b64k)});
  CHECK(feed(WsRole::client, hex("82 7F 00 00 00 00 00 01 00 00") + b64k, Split::random, 7) ==
        std::vector{message(WsOpcode::binary, b64k)});
}

TEST_CASE("RFC 6455 ping and pong examples: a ping is answered with a pong of its payload", "[websocket][frame]") {
  // An unmasked ping "Hello" to a client: the reply is a masked pong "Hello".
  const auto events = feed(WsRole::client, hex("89 05 48 65 6c 6c 6f"), Split::whole);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == WsEvent::Kind::ping);
  CHECK(events[0].payload == "Hello");
  const std::string& pong = events[0].reply;
  REQUIRE(pong.size() == 2 + 4 + 5);
  CHECK(pong.substr(0, 2) == hex("8a 85"));
  std::string body = pong.substr(6);
  duet::WsMaskKey key;
  std::memcpy(key.data(), pong.data() + 2, 4);
  duet::ws_mask(body, key);
  CHECK(body == "Hello");
  // A server answers the masked ping with an unmasked pong: RFC's "8a 05 Hello".
  const auto s = feed_all_ways(WsRole::server, ws_test::frame(0x9, "Hello"));
  REQUIRE(s.size() == 1);
  CHECK(s[0].reply == hex("8a 05 48 65 6c 6c 6f"));
  // The masked pong example arrives at a server as a pong event, with no reply.
  const auto p = feed_all_ways(WsRole::server, hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"));
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == WsEvent::Kind::pong);
  CHECK(p[0].payload == "Hello");
  CHECK(p[0].reply.empty());
}

TEST_CASE("frame headers are written as RFC 6455's examples, lengths in minimal form", "[websocket][frame]") {
  duet::WsFrameHeader h;
  h.opcode = WsOpcode::text;
  h.length = 5;
  CHECK(write_header(h) == hex("81 05"));
  h.masked = true;
  h.mask = ws_test::test_key;
  CHECK(write_header(h) == hex("81 85 37 fa 21 3d"));
  std::string hello = "Hello";
  duet::ws_mask(hello, h.mask);
  CHECK(hello == hex("7f 9f 4d 51 58"));
  h = {};
  h.fin = false;
  h.opcode = WsOpcode::text;
  h.length = 3;
  CHECK(write_header(h) == hex("01 03"));
  h = {};
  h.length = 125;
  CHECK(write_header(h) == hex("82 7d"));
  h.length = 126;
  CHECK(write_header(h) == hex("82 7e 00 7e"));
  h.length = 256;
  CHECK(write_header(h) == hex("82 7e 01 00"));
  h.length = 65535;
  CHECK(write_header(h) == hex("82 7e ff ff"));
  h.length = 65536;
  CHECK(write_header(h) == hex("82 7f 00 00 00 00 00 01 00 00"));
  h.rsv1 = true;
  h.length = 0;
  CHECK(write_header(h) == hex("c2 00"));
}

TEST_CASE("masking in pieces at any offset equals masking at once", "[websocket][frame]") {
  std::string data(1000, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  std::string whole = data;
  duet::ws_mask(whole, ws_test::test_key);
  for (std::size_t cut : {1U, 3U, 8U, 13U, 999U}) {
    std::string parts = data;
    std::span<char> all(parts);
    duet::ws_mask(all.first(cut), ws_test::test_key, 0);
    duet::ws_mask(all.subspan(cut), ws_test::test_key, cut);
    CHECK(parts == whole);
  }
  duet::ws_mask(whole, ws_test::test_key);
  CHECK(whole == data);
}

TEST_CASE("the server writes unmasked frames of the caller's bytes, with no copy", "[websocket][frame]") {
  duet::WsWriter w(WsRole::server);
  const std::string hello = "Hello";
  const duet::WsOutFrame f = w.message(WsOpcode::text, hello);
  CHECK(std::string(f.header.begin(), f.header.end()) == hex("81 05"));
  CHECK(f.payload.data() == hello.data());
  const std::string big(65536, 'x');
  const duet::WsOutFrame g = w.message(WsOpcode::binary, big);
  CHECK(std::string(g.header.begin(), g.header.end()) == hex("82 7f 00 00 00 00 00 01 00 00"));
  CHECK(g.payload.data() == big.data());
}

TEST_CASE("a client masks with a fresh key: a copy, or the caller's buffer in place", "[websocket][frame]") {
  duet::WsWriter w(WsRole::client);
  WsSession server(WsRole::server);
  const duet::WsOutFrame a = w.message(WsOpcode::text, "Hello");
  std::string wire_a(a.header.begin(), a.header.end());
  wire_a.append(a.payload.begin(), a.payload.end());
  CHECK(static_cast<unsigned char>(wire_a[1]) == 0x85);
  CHECK(ws_test::feed_pieces(server, wire_a, {wire_a.size()}) == std::vector{message(WsOpcode::text, "Hello")});

  std::string buffer = "Hello";
  const duet::WsOutFrame b = w.message_in_place(WsOpcode::text, buffer);
  CHECK(b.payload.data() == buffer.data());
  CHECK(buffer != "Hello");  // masked where it lies
  std::string wire_b(b.header.begin(), b.header.end());
  wire_b += buffer;
  CHECK(wire_b.substr(2, 4) != wire_a.substr(2, 4));  // another key
  CHECK(ws_test::feed_pieces(server, wire_b, {wire_b.size()}) == std::vector{message(WsOpcode::text, "Hello")});
}

TEST_CASE("a whole frame in the buffer is handed over as a view of it, unmasked in place", "[websocket][frame]") {
  WsSession s(WsRole::server);
  std::string wire = ws_test::frame(0x2, std::string(300, 'q'));
  std::span<char> in(wire);
  const WsEvent e = s.next(in);
  REQUIRE(e.kind == WsEvent::Kind::message);
  CHECK(e.payload.data() == wire.data() + 4 + 4);
  CHECK(std::string(e.payload.begin(), e.payload.end()) == std::string(300, 'q'));
  CHECK(in.empty());
}

TEST_CASE("every frame rule broken fails with its close code and a close frame", "[websocket][frame]") {
  using ws_test::frame;
  struct Case {
    const char* what;
    WsRole role;
    std::string bytes;
    std::uint16_t code;
  };
  const std::string long_ping(126, 'p');
  const std::vector<Case> cases = {
      {"an unmasked client frame", WsRole::server, frame(0x1, "hi", true, false), 1002},
      {"a masked server frame", WsRole::client, frame(0x1, "hi", true, true), 1002},
      {"reserved data opcode 3", WsRole::server, frame(0x3, "x"), 1002},
      {"reserved data opcode 7", WsRole::server, frame(0x7, ""), 1002},
      {"reserved control opcode 0xB", WsRole::server, frame(0xB, "x"), 1002},
      {"reserved control opcode 0xF", WsRole::server, frame(0xF, ""), 1002},
      {"RSV1 without an extension", WsRole::server, frame(0x1, "x", true, true, true), 1002},
      {"RSV2", WsRole::server, frame(0x2, "x", true, true, false, true), 1002},
      {"RSV3", WsRole::server, frame(0x2, "x", true, true, false, false, true), 1002},
      {"a ping over 125 bytes", WsRole::server, frame(0x9, long_ping), 1002},
      {"a fragmented ping", WsRole::server, frame(0x9, "x", false), 1002},
      {"a fragmented close", WsRole::server, frame(0x8, "", false), 1002},
      {"a 16-bit length under 126", WsRole::client, hex("82 7e 00 05 01 02 03 04 05"), 1002},
      {"a 64-bit length under 65536", WsRole::client, hex("82 7f 00 00 00 00 00 00 01 00"), 1002},
      {"a 64-bit length with its top bit set", WsRole::client, hex("82 7f 80 00 00 00 00 00 00 00"), 1002},
      {"a continuation with no message", WsRole::server, frame(0x0, "x"), 1002},
      {"a new message inside a fragmented one", WsRole::server, frame(0x1, "a", false) + frame(0x1, "b"), 1002},
      {"a binary message inside a text one", WsRole::server, frame(0x1, "a", false) + frame(0x2, "b"), 1002},
      {"invalid UTF-8 in a text message", WsRole::server, frame(0x1, hex("ce ba e1 bd 80 ed a0 80")), 1007},
      {"a text message cut inside a character", WsRole::server, frame(0x1, hex("ce")), 1007},
      {"a close payload of one byte", WsRole::server, frame(0x8, hex("03")), 1002},
      {"close code 999", WsRole::server, frame(0x8, hex("03 e7")), 1002},
      {"close code 1004", WsRole::server, frame(0x8, hex("03 ec")), 1002},
      {"close code 1005 on the wire", WsRole::server, frame(0x8, hex("03 ed")), 1002},
      {"close code 1006 on the wire", WsRole::server, frame(0x8, hex("03 ee")), 1002},
      {"close code 1015 on the wire", WsRole::server, frame(0x8, hex("03 f7")), 1002},
      {"close code 1016", WsRole::server, frame(0x8, hex("03 f8")), 1002},
      {"close code 2999", WsRole::server, frame(0x8, hex("0b b7")), 1002},
      {"close code 5000", WsRole::server, frame(0x8, hex("13 88")), 1002},
      {"a close reason that is not UTF-8", WsRole::server, frame(0x8, hex("03 e8 ff")), 1007},
      {"a message over the maximum", WsRole::server, frame(0x2, std::string(101, 'x')), 1009},
      {"fragments over the maximum together", WsRole::server,
       frame(0x2, std::string(60, 'x'), false) + frame(0x0, std::string(41, 'x')), 1009},
  };
  duet::WsSessionOptions options;
  options.max_message_size = 100;
  for (const Case& c : cases) {
    INFO(c.what);
    const std::vector<Rec> events = feed_all_ways(c.role, c.bytes, options);
    REQUIRE(events.size() == 1);
    CHECK(events[0].kind == WsEvent::Kind::error);
    CHECK(events[0].code == c.code);
    // The reply is our close frame with that code (masked by a client).
    const std::string& reply = events[0].reply;
    REQUIRE(reply.size() >= 4);
    CHECK(static_cast<unsigned char>(reply[0]) == 0x88);
    std::string payload = reply.substr(c.role == WsRole::client ? 6 : 2);
    if (c.role == WsRole::client) {
      duet::WsMaskKey key;
      std::memcpy(key.data(), reply.data() + 2, 4);
      duet::ws_mask(payload, key);
    }
    CHECK(((static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1])) == c.code);
  }
}

TEST_CASE("an oversized message fails from its header, before its payload arrives", "[websocket][frame]") {
  duet::WsSessionOptions options;
  options.max_message_size = 1000;
  WsSession s(WsRole::client, options);
  std::string head = hex("82 7f 00 00 00 01 00 00 00 00");  // 4 GiB announced
  std::span<char> in(head);
  const WsEvent e = s.next(in);
  CHECK(e.kind == WsEvent::Kind::error);
  CHECK(e.error.code == 1009);
  CHECK(s.state() == duet::WsState::closed);
}

TEST_CASE("a message of exactly the maximum size is delivered", "[websocket][frame]") {
  duet::WsSessionOptions options;
  options.max_message_size = 100;
  const std::string bytes = ws_test::frame(0x2, std::string(50, 'a'), false) + ws_test::frame(0x0, std::string(50, 'b'));
  CHECK(feed_all_ways(WsRole::server, bytes, options) ==
        std::vector{message(WsOpcode::binary, std::string(50, 'a') + std::string(50, 'b'))});
}
