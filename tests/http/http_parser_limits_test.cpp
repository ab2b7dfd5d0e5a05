// RequestParser limits, each at the limit and one past, fed every way; and
// the driver's side of the contract: when the head is reported, what the
// views point at, what consumed() counts, what an error leaves.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "duet/http/request_parser.hpp"
#include "http_feed.hpp"

using duet::http::ParseEvent;
using duet::http::RequestLimits;
using duet::http::RequestParser;
using http_test::feed_every_way;

namespace {

RequestLimits tight() {
  RequestLimits l;
  l.max_request_line = 64;
  l.max_head_bytes = 256;
  l.max_headers = 4;
  l.max_body = 16;
  l.max_chunk_extension = 8;
  return l;
}

bool refused_with(const std::string& transcript, int status) {
  return transcript.rfind("E" + std::to_string(status) + " ", 0) == 0;
}

const std::string chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

}  // namespace

TEST_CASE("the request line may be as long as the limit, one byte more is 414", "[http][parser][limits]") {
  auto line = [](std::size_t target) { return "GET /" + std::string(target - 1, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n"; };
  CHECK(feed_every_way(line(64 - 13), tight()).rfind("GET /aaa", 0) == 0);
  CHECK(refused_with(feed_every_way(line(64 - 12), tight()), 414));
  // Never ending: refused once the limit is passed, without waiting for a CRLF.
  CHECK(refused_with(feed_every_way("GET /" + std::string(100, 'a'), tight()), 414));
  // The default limit, 8 KiB.
  RequestLimits defaults;
  CHECK(feed_every_way(line(defaults.max_request_line - 13)).rfind("GET /aaa", 0) == 0);
  CHECK(refused_with(feed_every_way(line(defaults.max_request_line - 12)), 414));
}

TEST_CASE("the head may be as large as the limit, one byte more is 431", "[http][parser][limits]") {
  auto head = [](std::size_t pad) { return "GET / HTTP/1.1\r\nHost: a\r\nX: " + std::string(pad, 'v') + "\r\n\r\n"; };
  CHECK(head(224).size() == 256);
  CHECK(feed_every_way(head(224), tight()).rfind("GET /", 0) == 0);
  CHECK(refused_with(feed_every_way(head(225), tight()), 431));
  CHECK(refused_with(feed_every_way("GET / HTTP/1.1\r\nHost: a\r\nX: " + std::string(300, 'v'), tight()), 431));
  RequestLimits defaults;
  CHECK(feed_every_way(head(defaults.max_head_bytes - 32)).rfind("GET /", 0) == 0);
  CHECK(refused_with(feed_every_way(head(defaults.max_head_bytes - 31)), 431));
}

TEST_CASE("a line limit above the head limit still gives one answer however the bytes are split",
          "[http][parser][limits]") {
  RequestLimits l;
  l.max_request_line = 1000;
  l.max_head_bytes = 100;
  CHECK(refused_with(feed_every_way("GET /" + std::string(200, 'a') + " HTTP/1.1\r\n\r\n", l), 414));
  // The line within its (clamped) limit, the head past its own.
  CHECK(refused_with(feed_every_way("GET /" + std::string(80, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n", l), 431));
}

TEST_CASE("a head may hold as many fields as the limit, one more is 431", "[http][parser][limits]") {
  std::string three = "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n";
  CHECK(feed_every_way(three + "\r\n", tight()) == "GET /|/||a|1.1|ka|H4|B|T;");
  CHECK(feed_every_way(three + "D: 4\r\n\r\n", tight()) == "E431 too many header fields");
}

TEST_CASE("a body may be as large as the limit, one byte more is 413", "[http][parser][limits]") {
  std::string post = "POST / HTTP/1.1\r\nHost: a\r\n";
  CHECK(feed_every_way(post + "Content-Length: 16\r\n\r\n" + std::string(16, 'b'), tight()).find("|B" + std::string(16, 'b')) !=
        std::string::npos);
  CHECK(feed_every_way(post + "Content-Length: 17\r\n\r\n" + std::string(17, 'b'), tight()) ==
        "E413 body larger than the limit");
  CHECK(feed_every_way(chunked + "8\r\naaaaaaaa\r\n8\r\nbbbbbbbb\r\n0\r\n\r\n", tight()) ==
        "POST /|/||a|1.1|ka|H2|Baaaaaaaabbbbbbbb|T;");
  // The head and the first chunk are out before the second chunk's size is refused.
  CHECK(feed_every_way(chunked + "8\r\naaaaaaaa\r\n9\r\nbbbbbbbbb\r\n0\r\n\r\n", tight()) ==
        "POST /|/||a|1.1|ka|H2E413 body larger than the limit");
}

TEST_CASE("a chunk extension may be as long as the limit, one byte more is 400", "[http][parser][limits]") {
  CHECK(feed_every_way(chunked + "1;abcdefg\r\nx\r\n0\r\n\r\n", tight()) == "POST /|/||a|1.1|ka|H2|Bx|T;");
  CHECK(feed_every_way(chunked + "1;abcdefgh\r\nx\r\n0\r\n\r\n", tight()) == "POST /|/||a|1.1|ka|H2E400 chunk extension too long");
  CHECK(feed_every_way(chunked + "1;" + std::string(100, 'a'), tight()) == "POST /|/||a|1.1|ka|H2E400 chunk line too long");
}

TEST_CASE("trailers have the head's limits on size and count", "[http][parser][limits]") {
  CHECK(feed_every_way(chunked + "0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", tight()) ==
        "POST /|/||a|1.1|ka|H2|B|TA:1,B:2,C:3,D:4,;");
  CHECK(feed_every_way(chunked + "0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n", tight()) ==
        "POST /|/||a|1.1|ka|H2E431 too many header fields");
  auto trailer = [](std::size_t pad) { return "0\r\nT: " + std::string(pad, 't') + "\r\n\r\n"; };
  CHECK(feed_every_way(chunked + trailer(256 - 7), tight()).find("|TT:ttt") != std::string::npos);
  CHECK(feed_every_way(chunked + trailer(256 - 6), tight()) == "POST /|/||a|1.1|ka|H2E431 trailer section too large");
}

TEST_CASE("the head is reported before its body arrives, so a server can send 100 Continue first", "[http][parser]") {
  RequestParser parser;
  std::string head = "PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
  REQUIRE(parser.parse(head) == ParseEvent::head);
  CHECK(parser.consumed() == head.size());
  CHECK(parser.head().expect_continue);
  CHECK(parser.body_remaining() == 5);
  CHECK(parser.parse("") == ParseEvent::need_more);
  REQUIRE(parser.parse("hel") == ParseEvent::body);
  CHECK(parser.body() == "hel");
  REQUIRE(parser.parse("lo") == ParseEvent::body);
  CHECK(parser.parse("") == ParseEvent::message_end);
}

TEST_CASE("body pieces are views of the caller's bytes, and chunk framing is consumed with them", "[http][parser]") {
  RequestParser parser;
  std::string in = chunked + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  std::string_view rest = in;
  REQUIRE(parser.parse(rest) == ParseEvent::head);
  rest.remove_prefix(parser.consumed());
  REQUIRE(parser.parse(rest) == ParseEvent::body);
  CHECK(parser.body().data() == rest.data() + 3);
  CHECK(parser.consumed() == 6);
  rest.remove_prefix(parser.consumed());
  REQUIRE(parser.parse(rest) == ParseEvent::body);
  CHECK(parser.body() == "de");
  CHECK(parser.consumed() == 7);  // "\r\n" "2\r\n" "de"
  rest.remove_prefix(parser.consumed());
  REQUIRE(parser.parse(rest) == ParseEvent::message_end);
  CHECK(parser.consumed() == rest.size());
}

TEST_CASE("relocate_head repoints the head at bytes the driver moved", "[http][parser]") {
  RequestParser parser;
  std::string buffer = "GET /x?y HTTP/1.1\r\nHost: h\r\nA: b\r\n\r\n";
  REQUIRE(parser.parse(buffer) == ParseEvent::head);
  std::string moved(parser.head_bytes());
  std::memset(buffer.data(), '#', buffer.size());
  parser.relocate_head(moved.data());
  const auto& h = parser.head();
  CHECK(h.method == "GET");
  CHECK(h.target == "/x?y");
  CHECK(h.path == "/x");
  CHECK(h.query == "y");
  CHECK(h.host == "h");
  CHECK(h.find("a") == "b");
  CHECK(h.headers[0].name.data() == moved.data() + 19);
}

TEST_CASE("an error sticks until reset, and reset parses afresh", "[http][parser]") {
  RequestParser parser;
  REQUIRE(parser.parse("GET / HTTP/1.1\r\n\r\n") == ParseEvent::error);
  CHECK(parser.error().status == 400);
  CHECK(parser.error().detail == "missing Host");
  CHECK(parser.parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n") == ParseEvent::error);
  parser.reset();
  CHECK(parser.parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n") == ParseEvent::head);
  CHECK(parser.head().find("HOST") == "a");
  CHECK(parser.head().has("host"));
  CHECK_FALSE(parser.head().has("x"));
}
