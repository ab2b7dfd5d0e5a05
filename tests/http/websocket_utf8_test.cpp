// UTF-8 validation (RFC 3629) against a table of valid and invalid
// sequences: whole, byte by byte, and inside text messages split into
// fragments at every point.
#include <catch2/catch.hpp>

#include "http/websocket_feed.hpp"

using ws_test::hex;

namespace {

struct Utf8Case {
  const char* what;
  std::string bytes;
  bool valid;
};

std::vector<Utf8Case> table() {
  return {
      {"empty", "", true},
      {"ASCII", "Hello, world", true},
      {"NUL", std::string(1, '\0'), true},
      {"Greek (Autobahn's kosme)", hex("ce ba e1 bd b9 cf 83 ce bc ce b5"), true},
      {"U+0080, the first two-byte", hex("c2 80"), true},
      {"U+07FF, the last two-byte", hex("df bf"), true},
      {"U+0800, the first three-byte", hex("e0 a0 80"), true},
      {"U+D7FF, below the surrogates", hex("ed 9f bf"), true},
      {"U+E000, above the surrogates", hex("ee 80 80"), true},
      {"U+FFFD", hex("ef bf bd"), true},
      {"U+FFFF", hex("ef bf bf"), true},
      {"U+10000, the first four-byte", hex("f0 90 80 80"), true},
      {"U+10FFFF, the last code point", hex("f4 8f bf bf"), true},
      {"long ASCII then a four-byte", std::string(37, 'a') + hex("f0 9f 98 80") + std::string(9, 'b'), true},
      {"a lone continuation 80", hex("80"), false},
      {"a lone continuation bf", hex("bf"), false},
      {"overlong NUL c0 80", hex("c0 80"), false},
      {"overlong c1 bf", hex("c1 bf"), false},
      {"overlong three-byte e0 80 80", hex("e0 80 80"), false},
      {"overlong three-byte e0 9f bf", hex("e0 9f bf"), false},
      {"surrogate U+D800", hex("ed a0 80"), false},
      {"surrogate U+DFFF", hex("ed bf bf"), false},
      {"surrogate pair encoded", hex("ed a0 bd ed b2 a9"), false},
      {"overlong four-byte f0 80 80 80", hex("f0 80 80 80"), false},
      {"overlong four-byte f0 8f bf bf", hex("f0 8f bf bf"), false},
      {"U+110000", hex("f4 90 80 80"), false},
      {"lead f5", hex("f5 80 80 80"), false},
      {"lead f8 (five bytes)", hex("f8 88 80 80 80"), false},
      {"fe", hex("fe"), false},
      {"ff", hex("ff"), false},
      {"truncated two-byte", hex("c2"), false},
      {"truncated three-byte", hex("e0 a0"), false},
      {"truncated four-byte", hex("f0 90 80"), false},
      {"lead followed by ASCII", hex("c2 41"), false},
      {"three-byte broken in the middle", hex("e1 41 80"), false},
      {"Autobahn 6.3.1", hex("ce ba e1 bd b9 cf 83 ce bc ce b5 ed a0 80 65 64 69 74 65 64"), false},
      {"invalid after long ASCII", std::string(40, 'a') + hex("ff"), false},
  };
}

}  // namespace

TEST_CASE("UTF-8 validation accepts exactly RFC 3629's sequences, however they are split", "[websocket][utf8]") {
  for (const Utf8Case& c : table()) {
    INFO(c.what);
    CHECK(duet::is_valid_utf8(c.bytes) == c.valid);
    duet::Utf8Validator bytewise;
    bool ok = true;
    for (const char b : c.bytes) ok = ok && bytewise.feed(std::string_view(&b, 1));
    CHECK((ok && bytewise.complete()) == c.valid);
    for (std::size_t cut = 0; cut <= c.bytes.size(); ++cut) {
      duet::Utf8Validator v;
      const bool two = v.feed(std::string_view(c.bytes).substr(0, cut)) && v.feed(std::string_view(c.bytes).substr(cut));
      CHECK((two && v.complete()) == c.valid);
    }
  }
}

TEST_CASE("a validator fails at the first impossible byte and stays failed", "[websocket][utf8]") {
  duet::Utf8Validator v;
  CHECK(v.feed(hex("ce")));
  CHECK_FALSE(v.complete());
  CHECK_FALSE(v.feed(hex("41")));
  CHECK(v.failed());
  CHECK_FALSE(v.feed(std::string_view("ok")));
  v.reset();
  CHECK(v.feed(std::string_view("ok")));
  CHECK(v.complete());
}

TEST_CASE("text messages are validated across fragments split at every point", "[websocket][utf8]") {
  for (const Utf8Case& c : table()) {
    INFO(c.what);
    for (std::size_t cut = 0; cut <= c.bytes.size(); ++cut) {
      const std::string in = ws_test::frame(0x1, std::string_view(c.bytes).substr(0, cut), false) +
                             ws_test::frame(0x9, "between") +
                             ws_test::frame(0x0, std::string_view(c.bytes).substr(cut));
      for (const auto how : {ws_test::Split::whole, ws_test::Split::bytewise}) {
        duet::WsSession s(duet::WsRole::server);
        const auto ev = ws_test::feed_pieces(s, in, ws_test::split_sizes(in.size(), how, 1));
        REQUIRE_FALSE(ev.empty());
        const auto& last = ev.back();
        if (c.valid) {
          CHECK(last.kind == duet::WsEvent::Kind::message);
          CHECK(last.payload == c.bytes);
        } else {
          CHECK(last.kind == duet::WsEvent::Kind::error);
          CHECK(last.code == 1007);
        }
      }
    }
  }
}

TEST_CASE("invalid UTF-8 fails the connection before the message ends", "[websocket][utf8]") {
  duet::WsSession s(duet::WsRole::server);
  // The first fragment already holds an impossible byte: fail now, not at FIN.
  const auto ev = ws_test::feed_pieces(s, ws_test::frame(0x1, hex("41 ff"), false), {8});
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].code == 1007);
}

TEST_CASE("binary messages are not UTF-8 checked", "[websocket][utf8]") {
  duet::WsSession s(duet::WsRole::server);
  const auto ev = ws_test::feed_pieces(s, ws_test::frame(0x2, hex("ff fe")), {8});
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == duet::WsEvent::Kind::message);
}
