// permessage-deflate: RFC 7692 §7.2.3's examples byte for byte, round trips
// through a client and a server session with and without context takeover
// and at every window size, fragmented compressed messages, and a zip bomb
// that ends in 1009 with its memory bounded.
#include <catch2/catch.hpp>

#include <random>

#include "http/websocket_feed.hpp"

using duet::WsDeflateParams;
using duet::WsEvent;
using duet::WsInflater;
using duet::WsOpcode;
using duet::WsRole;
using duet::WsSession;
using ws_test::hex;
using ws_test::Rec;
using ws_test::Split;

namespace {

std::string compress(duet::WsDeflater& d, std::string_view in) {
  std::string out;
  d.compress(std::span<const char>(in.data(), in.size()), true, out);
  return out;
}

std::string inflate(WsInflater& i, std::string_view in, std::size_t limit = 1 << 20) {
  std::string out;
  REQUIRE(i.decompress(std::span<const char>(in.data(), in.size()), true, out, limit) == WsInflater::Result::ok);
  return out;
}

std::string wire(const duet::WsOutFrame& f) {
  std::string out(f.header.begin(), f.header.end());
  out.append(f.payload.begin(), f.payload.end());
  return out;
}

std::string text_of(std::mt19937_64& rng, std::size_t size) {
  static constexpr std::string_view words[] = {"duet ", "socket ", "frame ", "κόσμε ", "deflate ", "window ", "🙂 "};
  std::string s;
  while (s.size() < size) s += words[rng() % std::size(words)];
  return s;
}

}  // namespace

TEST_CASE("RFC 7692's examples: Hello compressed, then again with the shared window", "[websocket][deflate]") {
  duet::WsDeflater d(15, false);
  CHECK(compress(d, "Hello") == hex("f2 48 cd c9 c9 07 00"));
  CHECK(compress(d, "Hello") == hex("f2 00 11 00 00"));  // §7.2.3.2: refers back into the first message
  WsInflater i(15, false);
  CHECK(inflate(i, hex("f2 48 cd c9 c9 07 00")) == "Hello");
  CHECK(inflate(i, hex("f2 00 11 00 00")) == "Hello");
  // Without context takeover every message starts afresh.
  duet::WsDeflater fresh(15, true);
  CHECK(compress(fresh, "Hello") == hex("f2 48 cd c9 c9 07 00"));
  CHECK(compress(fresh, "Hello") == hex("f2 48 cd c9 c9 07 00"));
}

TEST_CASE("RFC 7692's other payloads inflate: stored block, BFINAL block, split, empty", "[websocket][deflate]") {
  WsInflater i(15, false);
  CHECK(inflate(i, hex("00 05 00 fa ff 48 65 6c 6c 6f 00")) == "Hello");  // §7.2.3.3, no compression
  CHECK(inflate(i, hex("f3 48 cd c9 c9 07 00 00")) == "Hello");           // §7.2.3.4, BFINAL set
  CHECK(inflate(i, hex("f2 48 cd c9 c9 07 00")) == "Hello");              // and the stream goes on
  // §7.2.3.1's message in two fragments: "f2 48 cd" and "c9 c9 07 00".
  std::string out;
  CHECK(i.decompress(hex("f2 48 cd"), false, out, 100) == WsInflater::Result::ok);
  CHECK(i.decompress(hex("c9 c9 07 00"), true, out, 100) == WsInflater::Result::ok);
  CHECK(out == "Hello");
  CHECK(inflate(i, hex("00")).empty());  // §7.2.3.6, an empty message
}

TEST_CASE("an empty message compresses to one 00 byte and inflates to nothing", "[websocket][deflate]") {
  WsSession client(WsRole::client, {}, WsDeflateParams{});
  WsSession server(WsRole::server, {}, WsDeflateParams{});
  duet::WsSessionOptions always;
  always.deflate.min_compress_size = 0;
  WsSession eager(WsRole::server, always, WsDeflateParams{});
  const std::string w = wire(eager.message(WsOpcode::text, ""));
  CHECK(w == hex("c1 01 00"));
  WsSession reader(WsRole::client, {}, WsDeflateParams{});
  CHECK(ws_test::feed_pieces(reader, w, {w.size()}) == std::vector{Rec{WsEvent::Kind::message, WsOpcode::text, "", 0, {}, {}}});
}

TEST_CASE("compressed messages round-trip with and without context takeover, at every window size",
          "[websocket][deflate]") {
  std::mt19937_64 rng(7692);
  for (const bool takeover : {true, false}) {
    for (std::uint8_t bits = 8; bits <= 15; ++bits) {
      WsDeflateParams p;
      p.server_no_context_takeover = p.client_no_context_takeover = !takeover;
      p.server_max_window_bits = p.client_max_window_bits = bits;
      INFO("takeover " << takeover << " bits " << int(bits));
      duet::WsSessionOptions options;
      options.deflate.min_compress_size = 0;
      WsSession client(WsRole::client, options, p);
      std::string stream;
      std::vector<Rec> expected;
      for (int m = 0; m < 12; ++m) {
        const std::size_t size = m == 0 ? 0 : rng() % (m % 4 == 0 ? 40000 : 300);
        std::string text = text_of(rng, size);
        if (m % 3 == 2) {
          const std::size_t cut = text.size() / 3;
          const std::string first = wire(client.fragment(WsOpcode::text, std::string_view(text).substr(0, cut), false));
          CHECK((static_cast<unsigned char>(first[0]) & 0x40U) != 0);  // RSV1 on the first frame
          const std::string second = wire(client.fragment(WsOpcode::text, std::string_view(text).substr(cut), true));
          CHECK((static_cast<unsigned char>(second[0]) & 0x40U) == 0);  // never on a continuation
          CHECK((static_cast<unsigned char>(second[0]) & 0x0FU) == 0);
          stream += first + second;
        } else {
          const std::string w = wire(client.message(WsOpcode::text, text));
          CHECK((static_cast<unsigned char>(w[0]) & 0x40U) != 0);
          stream += w;
        }
        expected.push_back({WsEvent::Kind::message, WsOpcode::text, text, 0, {}, {}});
      }
      for (const Split how : {Split::whole, Split::bytewise, Split::random}) {
        WsSession server(WsRole::server, {}, p);
        CHECK(ws_test::feed_pieces(server, stream, ws_test::split_sizes(stream.size(), how, bits)) == expected);
      }
    }
  }
}

TEST_CASE("context takeover makes a repeated message cost a few bytes", "[websocket][deflate]") {
  std::mt19937_64 rng(1);
  const std::string text = text_of(rng, 2000);
  duet::WsWriter keep(WsRole::server, WsDeflateParams{});
  WsDeflateParams fresh_params;
  fresh_params.server_no_context_takeover = true;
  duet::WsWriter fresh(WsRole::server, fresh_params);
  const std::size_t first = keep.message(WsOpcode::text, text).size();
  const std::size_t again = keep.message(WsOpcode::text, text).size();
  CHECK(again < first / 10);
  CHECK(fresh.message(WsOpcode::text, text).size() == fresh.message(WsOpcode::text, text).size());
}

TEST_CASE("messages under the minimum size go out uncompressed, RSV1 clear", "[websocket][deflate]") {
  WsSession server(WsRole::server, {}, WsDeflateParams{});
  const std::string small = wire(server.message(WsOpcode::text, "Hello"));
  CHECK(small == hex("81 05") + "Hello");
  WsSession client(WsRole::client, {}, WsDeflateParams{});
  CHECK(ws_test::feed_pieces(client, small, {small.size()}) ==
        std::vector{Rec{WsEvent::Kind::message, WsOpcode::text, "Hello", 0, {}, {}}});
}

TEST_CASE("a zip bomb ends in 1009 with memory bounded by the maximum size", "[websocket][deflate]") {
  // 64 MiB of zeros compress to about 64 KiB.
  duet::WsDeflater d(15, false);
  std::string bomb;
  const std::string zeros(1 << 20, '\0');
  for (int i = 0; i < 64; ++i) d.compress(std::span<const char>(zeros), i == 63, bomb);
  CHECK(bomb.size() < 100 * 1024);

  const std::size_t limit = 1 << 20;
  WsInflater i(15, false);
  std::string out;
  CHECK(i.decompress(std::span<const char>(bomb), true, out, limit) == WsInflater::Result::too_big);
  CHECK(out.size() <= limit + 1);
  CHECK(out.capacity() <= 2 * limit + 64 * 1024);

  duet::WsSessionOptions options;
  options.max_message_size = limit;
  WsSession server(WsRole::server, options, WsDeflateParams{});
  std::string frame = ws_test::frame(0x2, bomb, true, true, true);
  const auto ev = ws_test::feed_pieces(server, frame, ws_test::split_sizes(frame.size(), Split::random, 3));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == WsEvent::Kind::error);
  CHECK(ev[0].code == 1009);
}

TEST_CASE("compressed data that does not inflate fails with 1007", "[websocket][deflate]") {
  WsSession server(WsRole::server, {}, WsDeflateParams{});
  const auto ev = ws_test::feed_pieces(server, ws_test::frame(0x2, hex("ff ff ff ff"), true, true, true), {10});
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].code == 1007);
}

TEST_CASE("with deflate agreed, RSV1 on a continuation or a control frame is still 1002", "[websocket][deflate]") {
  for (const std::string& bad : {ws_test::frame(0x1, "a", false) + ws_test::frame(0x0, "b", true, true, true),
                                 ws_test::frame(0x9, "p", true, true, true)}) {
    WsSession server(WsRole::server, {}, WsDeflateParams{});
    const auto ev = ws_test::feed_pieces(server, bad, {bad.size()});
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].code == 1002);
  }
}

TEST_CASE("compressed text is UTF-8 checked after inflating", "[websocket][deflate]") {
  duet::WsDeflater d(15, false);
  const std::string payload = compress(d, hex("41 ed a0 80"));
  WsSession server(WsRole::server, {}, WsDeflateParams{});
  const auto ev = ws_test::feed_pieces(server, ws_test::frame(0x1, payload, true, true, true), {100});
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].code == 1007);
}
