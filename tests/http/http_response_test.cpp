// ResponseWriter: the exact bytes of fixed, chunked, HEAD, 1xx, 204 and 304
// responses, the Connection decisions, and what it refuses to write.
#include <catch2/catch.hpp>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet/http/http_date.hpp"
#include "duet/http/request_parser.hpp"
#include "duet/http/response_writer.hpp"

using duet::http::HeaderField;
using duet::http::HttpVersion;
using duet::http::ResponseContext;
using duet::http::ResponseWriter;

namespace {

const ResponseContext get11{HttpVersion::http_1_1, false, true};
const ResponseContext head11{HttpVersion::http_1_1, true, true};
const ResponseContext get10_kept{HttpVersion::http_1_0, false, true};
const ResponseContext get10{HttpVersion::http_1_0, false, false};
const ResponseContext closing11{HttpVersion::http_1_1, false, false};

std::string respond(ResponseContext context, int status, std::string_view body, bool* keep_alive = nullptr) {
  std::string out;
  ResponseWriter w(out, context);
  w.start(status);
  w.body(body);
  if (keep_alive) *keep_alive = w.keep_alive();
  return out;
}

}  // namespace

TEST_CASE("a fixed-length response has its status line, fields, Content-Length and body", "[http][response]") {
  std::string out = "kept|";
  ResponseWriter w(out, get11);
  w.start(200);
  w.header("Content-Type", "text/plain");
  w.body("hello");
  CHECK(out == "kept|HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello");
  CHECK(w.keep_alive());
  CHECK(w.done());
}

TEST_CASE("the Connection field follows the request and the writer's own reasons to close", "[http][response]") {
  bool kept = true;
  CHECK(respond(get10_kept, 200, "x", &kept) == "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: keep-alive\r\n\r\nx");
  CHECK(kept);
  CHECK(respond(get10, 200, "x", &kept) == "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx");
  CHECK_FALSE(kept);
  CHECK(respond(closing11, 404, "", &kept) == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  CHECK_FALSE(kept);
  std::string out;
  ResponseWriter w(out, get11);
  w.start(503, "Busy");
  w.close_connection();
  w.end();
  CHECK(out == "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  CHECK_FALSE(w.keep_alive());
}

TEST_CASE("the context of a parsed request carries its version, method and keep-alive", "[http][response]") {
  duet::http::RequestParser parser;
  REQUIRE(parser.parse("HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == duet::http::ParseEvent::head);
  ResponseContext c = ResponseContext::from(parser.head());
  CHECK(c.head_method);
  CHECK(c.keep_alive);
  CHECK(c.version == HttpVersion::http_1_0);
  CHECK_FALSE(ResponseContext::after_error().keep_alive);
}

TEST_CASE("a response to HEAD has the fields a GET would get and no body", "[http][response]") {
  CHECK(respond(head11, 200, "hello") == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
  std::string out;
  ResponseWriter w(out, head11);
  w.start(200);
  w.begin_chunked();
  w.chunk("abc");
  w.end_chunked();
  CHECK(out == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  CHECK(w.keep_alive());
}

TEST_CASE("204 and 304 have no body and no framing fields", "[http][response]") {
  for (int status : {204, 304}) {
    std::string out;
    ResponseWriter w(out, get11);
    w.start(status);
    w.header("ETag", "\"x\"");
    CHECK_THROWS_AS(w.body("x"), std::logic_error);
    CHECK_THROWS_AS(w.begin_chunked(), std::logic_error);
    w.end();
    CHECK(out == "HTTP/1.1 " + std::to_string(status) + (status == 204 ? " No Content" : " Not Modified") +
                     "\r\nETag: \"x\"\r\n\r\n");
    CHECK(w.keep_alive());
  }
}

TEST_CASE("a chunked response streams chunks and ends with the last chunk and trailers", "[http][response]") {
  std::string out;
  ResponseWriter w(out, get11);
  w.start(200);
  w.begin_chunked();
  w.chunk("hello");
  w.chunk("");  // an empty chunk would end the body: skipped
  w.chunk(std::string(26, 'z'));
  std::vector<HeaderField> trailers{{"X-Sum", "31"}};
  w.end_chunked(trailers);
  CHECK(out == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1a\r\n" + std::string(26, 'z') +
                   "\r\n0\r\nX-Sum: 31\r\n\r\n");
  CHECK(w.keep_alive());
}

TEST_CASE("a streamed response to HTTP/1.0 is delimited by closing, not chunked", "[http][response]") {
  std::string out;
  ResponseWriter w(out, get10_kept);
  w.start(200);
  w.begin_chunked();
  w.chunk("ab");
  w.chunk("cd");
  w.end_chunked();
  CHECK(out == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabcd");
  CHECK_FALSE(w.keep_alive());
}

TEST_CASE("end_head writes only the head so the caller can send the body from its own memory", "[http][response]") {
  std::string out;
  ResponseWriter w(out, get11);
  w.start(200);
  w.end_head(1 << 20);
  CHECK(out == "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n");
  CHECK(w.body_allowed());
}

TEST_CASE("interim responses come before the final one; 101 switches protocols", "[http][response]") {
  std::string out;
  duet::http::write_continue(out);
  ResponseWriter w(out, get11);
  w.start(103);
  w.header("Link", "</a.css>; rel=preload");
  w.end();
  w.start(200);
  w.body("");
  CHECK(out ==
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  std::string up;
  ResponseWriter u(up, get11);
  u.start(101);
  u.header("Upgrade", "websocket");
  u.end();
  CHECK(up == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
  CHECK_FALSE(u.keep_alive());
}

TEST_CASE("the writer refuses fields that would split the response or change its framing", "[http][response]") {
  std::string out;
  ResponseWriter w(out, get11);
  w.start(200);
  CHECK_THROWS_AS(w.header("X-A", "a\r\nSet-Cookie: x=1"), std::invalid_argument);
  CHECK_THROWS_AS(w.header("X-A", "a\nb"), std::invalid_argument);
  CHECK_THROWS_AS(w.header("X A", "a"), std::invalid_argument);
  CHECK_THROWS_AS(w.header("", "a"), std::invalid_argument);
  CHECK_THROWS_AS(w.header("content-length", "1"), std::invalid_argument);
  CHECK_THROWS_AS(w.header("Transfer-Encoding", "chunked"), std::invalid_argument);
  CHECK_THROWS_AS(w.header("Connection", "close"), std::invalid_argument);
  CHECK(out == "HTTP/1.1 200 OK\r\n");
  CHECK_THROWS_AS(w.chunk("x"), std::logic_error);
  w.end();
  CHECK_THROWS_AS(w.header("X", "y"), std::logic_error);
  std::string other;
  ResponseWriter bad(other, get11);
  CHECK_THROWS_AS(bad.start(99), std::logic_error);
  CHECK_THROWS_AS(bad.start(200, "OK\r\nX: y"), std::invalid_argument);
}

TEST_CASE("dates are IMF-fixdate in GMT", "[http][response]") {
  std::array<char, duet::http::http_date_size> buf;
  CHECK(duet::http::format_http_date(784111777, buf) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK(duet::http::format_http_date(0, buf) == "Thu, 01 Jan 1970 00:00:00 GMT");
  std::string out;
  ResponseWriter w(out, get11);
  w.start(200);
  w.date(1700000000);
  w.end();
  CHECK(out == "HTTP/1.1 200 OK\r\nDate: Tue, 14 Nov 2023 22:13:20 GMT\r\nContent-Length: 0\r\n\r\n");
}

TEST_CASE("an error response names the defect and closes the connection", "[http][response]") {
  std::string out;
  duet::http::write_error_response(out, {431, "too many header fields"});
  CHECK(out == "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain\r\nContent-Length: 23\r\n"
               "Connection: close\r\n\r\ntoo many header fields\n");
  CHECK(duet::http::status_reason(413) == "Content Too Large");
  CHECK(duet::http::status_reason(299) == "Unknown");
}
