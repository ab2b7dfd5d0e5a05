// The connection's behaviour over many frames: fragmentation with control
// frames between fragments, the close handshake's states, what may be sent
// when, and a long seeded conversation fed every way.
#include <catch2/catch.hpp>

#include "http/websocket_feed.hpp"

using duet::WsEvent;
using duet::WsOpcode;
using duet::WsRole;
using duet::WsSession;
using duet::WsState;
using ws_test::frame;
using ws_test::hex;
using ws_test::Rec;
using ws_test::Split;

namespace {

std::string wire(const duet::WsOutFrame& f) {
  std::string out(f.header.begin(), f.header.end());
  out.append(f.payload.begin(), f.payload.end());
  return out;
}

std::string bytes(std::span<const char> s) { return {s.begin(), s.end()}; }

std::vector<Rec> feed_whole(WsSession& s, std::string_view b) { return ws_test::feed_pieces(s, b, {b.size()}); }

}  // namespace

TEST_CASE("fragments reassemble into one message with control frames between them", "[websocket][session]") {
  const std::string in = frame(0x1, "Hel", false) + frame(0x9, "p1") + frame(0x0, "l", false) + frame(0xA, "p2") +
                         frame(0x0, "o") + frame(0x2, "tail");
  for (const Split how : {Split::whole, Split::bytewise, Split::random}) {
    for (std::uint64_t seed = 1; seed <= (how == Split::random ? 10U : 1U); ++seed) {
      WsSession s(WsRole::server);
      const auto ev = ws_test::feed_pieces(s, in, ws_test::split_sizes(in.size(), how, seed));
      REQUIRE(ev.size() == 4);
      CHECK(ev[0].kind == WsEvent::Kind::ping);
      CHECK(ev[0].payload == "p1");
      CHECK(ev[0].reply == hex("8a 02") + "p1");
      CHECK(ev[1].kind == WsEvent::Kind::pong);
      CHECK(ev[1].payload == "p2");
      CHECK(ev[2].kind == WsEvent::Kind::message);
      CHECK(ev[2].opcode == WsOpcode::text);
      CHECK(ev[2].payload == "Hello");
      CHECK(ev[3].opcode == WsOpcode::binary);
      CHECK(ev[3].payload == "tail");
    }
  }
}

TEST_CASE("empty frames: an empty message, empty fragments, an empty ping", "[websocket][session]") {
  WsSession s(WsRole::server);
  const auto ev = feed_whole(s, frame(0x1, "") + frame(0x2, "", false) + frame(0x0, "", false) + frame(0x0, "") +
                                    frame(0x9, ""));
  REQUIRE(ev.size() == 3);
  CHECK(ev[0].kind == WsEvent::Kind::message);
  CHECK(ev[0].payload.empty());
  CHECK(ev[1].opcode == WsOpcode::binary);
  CHECK(ev[1].payload.empty());
  CHECK(ev[2].reply == hex("8a 00"));
}

TEST_CASE("the peer closes first: its code is echoed, the session is closed, nothing more is read",
          "[websocket][session]") {
  WsSession s(WsRole::server);
  const auto ev = feed_whole(s, frame(0x8, hex("03 e8") + "bye") + frame(0x1, "ignored"));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == WsEvent::Kind::close);
  CHECK(ev[0].code == 1000);
  CHECK(ev[0].reason == "bye");
  CHECK(ev[0].reply == hex("88 02 03 e8"));
  CHECK(s.state() == WsState::closed);
  CHECK(s.close_code() == 1000);
  CHECK(s.message(WsOpcode::text, "late").empty());
  CHECK(s.ping().empty());
  CHECK(s.close(1000).empty());
}

TEST_CASE("a close with no status is 1005 and is answered with an empty close", "[websocket][session]") {
  WsSession s(WsRole::server);
  const auto ev = feed_whole(s, frame(0x8, ""));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].code == 1005);
  CHECK(ev[0].reply == hex("88 00"));
  CHECK(s.close_code() == 1005);
}

TEST_CASE("registered and private close codes are accepted", "[websocket][session]") {
  for (const std::uint16_t code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999,
                                   4000, 4999}) {
    WsSession s(WsRole::server);
    const std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
    const auto ev = feed_whole(s, frame(0x8, payload));
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].kind == WsEvent::Kind::close);
    CHECK(ev[0].code == code);
  }
}

TEST_CASE("we close first: closing until the peer's close, data still delivered, no pong", "[websocket][session]") {
  WsSession s(WsRole::server);
  CHECK(bytes(s.close(1001, "going")) == hex("88 07 03 e9") + "going");
  CHECK(s.state() == WsState::closing);
  CHECK(s.message(WsOpcode::text, "no").empty());
  CHECK(s.close(1000).empty());
  const auto ev = feed_whole(s, frame(0x1, "still") + frame(0x9, "ping") + frame(0x8, hex("03 e9")));
  REQUIRE(ev.size() == 3);
  CHECK(ev[0].payload == "still");
  CHECK(ev[1].kind == WsEvent::Kind::ping);
  CHECK(ev[1].reply.empty());
  CHECK(ev[2].kind == WsEvent::Kind::close);
  CHECK(ev[2].reply.empty());
  CHECK(s.state() == WsState::closed);
  CHECK(s.close_code() == 1001);
}

TEST_CASE("a failure while closing sends no second close", "[websocket][session]") {
  WsSession s(WsRole::server);
  (void)s.close(1000);
  const auto ev = feed_whole(s, frame(0x1, "x", true, false));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == WsEvent::Kind::error);
  CHECK(ev[0].reply.empty());
  CHECK(s.state() == WsState::closed);
  CHECK(s.close_code() == 1002);
}

TEST_CASE("a client's close frames are masked and a server reads them", "[websocket][session]") {
  WsSession client(WsRole::client);
  WsSession server(WsRole::server);
  const std::string c = bytes(client.close(4000, "done"));
  const auto ev = feed_whole(server, c);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].code == 4000);
  CHECK(ev[0].reason == "done");
  const auto back = feed_whole(client, ev[0].reply);
  REQUIRE(back.size() == 1);
  CHECK(back[0].code == 4000);
  CHECK(back[0].reply.empty());
  CHECK(client.state() == WsState::closed);
  CHECK(server.state() == WsState::closed);
}

TEST_CASE("a close reason is cut to fit 125 bytes on a character boundary", "[websocket][session]") {
  std::string reason;
  for (int i = 0; i < 50; ++i) reason += "\xce\xba";  // 100 bytes of two-byte characters
  reason = "x" + reason + reason;                      // 201 bytes, odd offset
  std::array<char, 125> out{};
  const std::size_t n = duet::write_close_payload({1000, reason}, out);
  CHECK(n == 2 + 123);
  CHECK(duet::is_valid_utf8(std::string_view(out.data() + 2, n - 2)));
  // A code that may not be sent goes out as 1011.
  CHECK(duet::write_close_payload({1006, ""}, out) == 2);
  CHECK(std::string(out.data(), 2) == hex("03 f3"));
}

TEST_CASE("a control payload over 125 bytes is the caller's mistake", "[websocket][session]") {
  WsSession s(WsRole::server);
  CHECK_THROWS_AS(s.ping(std::string(126, 'x')), std::invalid_argument);
}

TEST_CASE("a long seeded conversation arrives the same however it is cut", "[websocket][session]") {
  std::mt19937_64 rng(30);
  duet::WsWriter client(WsRole::client);
  std::string stream;
  std::vector<Rec> expected;
  for (int i = 0; i < 200; ++i) {
    const std::size_t size = rng() % 4 == 0 ? rng() % 20000 : rng() % 200;
    std::string payload(size, '\0');
    for (char& c : payload) c = static_cast<char>('a' + rng() % 26);
    if (rng() % 5 == 0) {
      stream += bytes(client.control(WsOpcode::ping, payload.substr(0, 100)));
      expected.push_back({WsEvent::Kind::ping, WsOpcode::binary, payload.substr(0, 100), 0, {}, hex("8a") +
                          std::string(1, static_cast<char>(std::min<std::size_t>(size, 100))) + payload.substr(0, 100)});
    } else if (rng() % 3 == 0) {
      const std::size_t cut = size / 2;
      stream += wire(client.fragment(WsOpcode::text, std::string_view(payload).substr(0, cut), false));
      stream += wire(client.fragment(WsOpcode::text, std::string_view(payload).substr(cut), true));
      expected.push_back({WsEvent::Kind::message, WsOpcode::text, payload, 0, {}, {}});
    } else {
      stream += wire(client.message(WsOpcode::binary, payload));
      expected.push_back({WsEvent::Kind::message, WsOpcode::binary, payload, 0, {}, {}});
    }
  }
  for (const Split how : {Split::whole, Split::bytewise, Split::random}) {
    WsSession server(WsRole::server);
    CHECK(ws_test::feed_pieces(server, stream, ws_test::split_sizes(stream.size(), how, 99)) == expected);
  }
}

TEST_CASE("random bytes end in need_more or in one error, never anything else", "[websocket][session]") {
  // Half of the runs start with a valid frame header so that garbage reaches
  // the deeper states (payloads, fragments, control frames, inflating).
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    std::mt19937_64 rng(seed);
    std::string junk(rng() % 300, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (seed % 2 == 0 && junk.size() > 6) junk[1] = static_cast<char>(junk[1] | 0x80);  // masked
    duet::WsSessionOptions options;
    options.max_message_size = 200;
    WsSession s(WsRole::server, options, seed % 3 == 0 ? std::optional<duet::WsDeflateParams>(duet::WsDeflateParams{}) : std::nullopt);
    const auto ev = ws_test::feed_pieces(s, junk, ws_test::split_sizes(junk.size(), Split::random, seed));
    int errors = 0;
    for (const Rec& r : ev) {
      if (r.kind == WsEvent::Kind::error) {
        ++errors;
        CHECK(duet::ws_close_code_sendable(r.code));
      }
      if (r.kind == WsEvent::Kind::message) CHECK(r.payload.size() <= 200);
    }
    CHECK(errors <= 1);
    if (errors == 1) CHECK(ev.back().kind == WsEvent::Kind::error);
  }
}
