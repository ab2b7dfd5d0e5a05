// ResponseParser (RFC 9112 §4, §6.3) and RequestWriter: every framing of a
// response (none, Content-Length, chunked with trailers, until close), the
// refusals shared with the request side, limits, interim responses; each
// table row fed whole, byte by byte and at seeded random split points.
#include <catch2/catch.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet/http/request_parser.hpp"
#include "duet/http/request_writer.hpp"
#include "duet/http/response_parser.hpp"

using duet::http::ParseEvent;
using duet::http::ResponseLimits;
using duet::http::ResponseParser;

namespace {

std::string describe(const duet::http::ResponseHead& h) {
  static const char* kinds[] = {"none", "length", "chunked", "close"};
  std::string s = std::to_string(h.status) + " " + std::string(h.reason);
  s.append(h.version == duet::http::HttpVersion::http_1_1 ? "|1.1" : "|1.0").append(h.keep_alive ? "|ka" : "|close");
  s.append("|").append(kinds[static_cast<int>(h.body)]).append("|H").append(std::to_string(h.headers.size()));
  return s;
}

// Feeds `input` cut at `cuts` (sorted), then eof() if `close`; the transcript:
// a head, "|B<body>|T<trailers>;" per message, "E<status> <detail>" on error,
// "N" if the input ended inside a response.
std::string feed(std::string_view input, const std::vector<std::size_t>& cuts, const char* method, bool close,
                 ResponseLimits limits) {
  ResponseParser parser(limits);
  parser.expect(method);
  std::string out, body, buffer;
  std::size_t start = 0, fed = 0;
  bool in_message = false;
  auto on_event = [&](ParseEvent ev) {
    if (ev == ParseEvent::error) {
      out += "E" + std::to_string(parser.error().status) + " " + std::string(parser.error().detail);
    } else if (ev == ParseEvent::head) {
      out += describe(parser.head());
      body.clear();
      in_message = true;
    } else if (ev == ParseEvent::body) {
      REQUIRE(!parser.body().empty());
      body += parser.body();
    } else if (ev == ParseEvent::message_end) {
      out.append("|B").append(body).append("|T");
      for (const auto& f : parser.trailers()) out.append(f.name).append(":").append(f.value).append(",");
      out += ";";
      in_message = false;
    }
  };
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    std::size_t to = i < cuts.size() ? cuts[i] : input.size();
    buffer.erase(0, start);
    start = 0;
    buffer.append(input.substr(fed, to - fed));
    fed = to;
    for (;;) {
      std::string_view in = std::string_view(buffer).substr(start);
      ParseEvent ev = parser.parse(in);
      REQUIRE(parser.consumed() <= in.size());
      start += parser.consumed();
      if (ev == ParseEvent::need_more) break;
      on_event(ev);
      if (ev == ParseEvent::error) return out;
    }
  }
  if (close) {
    ParseEvent ev = parser.eof();
    on_event(ev);
    if (ev == ParseEvent::error) return out;
  }
  return out + (in_message || buffer.size() > start ? "N" : "");
}

// The same transcript whole, byte by byte and at 20 random splits, or a mismatch fails.
std::string feed_every_way(std::string_view input, const char* method = "GET", bool close = false,
                           ResponseLimits limits = {}) {
  std::string whole = feed(input, {}, method, close, limits);
  std::vector<std::size_t> bytes;
  for (std::size_t i = 1; i < input.size(); ++i) bytes.push_back(i);
  CHECK(feed(input, bytes, method, close, limits) == whole);
  std::mt19937 rng(42);
  for (int round = 0; round < 20 && input.size() > 2; ++round) {
    std::vector<std::size_t> cuts;
    for (int k = 0; k < 3; ++k) cuts.push_back(1 + rng() % (input.size() - 1));
    std::sort(cuts.begin(), cuts.end());
    CHECK(feed(input, cuts, method, close, limits) == whole);
  }
  return whole;
}

struct Row {
  const char* name;
  std::string input;
  std::string expected;
  const char* method = "GET";
  bool close = false;
};

void check_rows(const std::vector<Row>& rows, ResponseLimits limits = {}) {
  for (const Row& r : rows) {
    INFO(r.name);
    CHECK(feed_every_way(r.input, r.method, r.close, limits) == r.expected);
  }
}

const std::string ok = "HTTP/1.1 200 OK\r\n";

}  // namespace

TEST_CASE("the response parser frames each kind of body as RFC 9112 6.3 says", "[http][response]") {
  check_rows({
      {"Content-Length", ok + "Content-Length: 5\r\n\r\nhello", "200 OK|1.1|ka|length|H1|Bhello|T;"},
      {"Content-Length 0", ok + "Content-Length: 0\r\n\r\n", "200 OK|1.1|ka|none|H1|B|T;"},
      {"two responses back to back", ok + "Content-Length: 1\r\n\r\na" + ok + "Content-Length: 1\r\n\r\nb",
       "200 OK|1.1|ka|length|H1|Ba|T;200 OK|1.1|ka|length|H1|Bb|T;"},
      {"chunked", ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n",
       "200 OK|1.1|ka|chunked|H1|Bhello world|T;"},
      {"chunked with trailers", ok + "Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\nX-Sum: 7\r\nY: z\r\n\r\n",
       "200 OK|1.1|ka|chunked|H1|Bhi|TX-Sum:7,Y:z,;"},
      {"until close", ok + "Server: t\r\n\r\nall of it", "200 OK|1.1|close|close|H1|Ball of it|T;", "GET", true},
      {"until close, not closed yet", ok + "\r\nsome", "200 OK|1.1|close|close|H0N"},
      {"HEAD ignores Content-Length", ok + "Content-Length: 5\r\n\r\n", "200 OK|1.1|ka|none|H1|B|T;", "HEAD"},
      {"204 has no body", "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n", "204 No Content|1.1|ka|none|H1|B|T;"},
      {"304 has no body", "HTTP/1.1 304 Not Modified\r\n\r\n", "304 Not Modified|1.1|ka|none|H0|B|T;"},
      {"100 then the final response", "HTTP/1.1 100 Continue\r\n\r\n" + ok + "Content-Length: 2\r\n\r\nok",
       "100 Continue|1.1|ka|none|H0|B|T;200 OK|1.1|ka|length|H1|Bok|T;"},
      {"101 ends the connection's HTTP", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
       "101 Switching Protocols|1.1|close|none|H1|B|T;"},
      {"HTTP/1.0 closes by default", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
       "200 OK|1.0|close|length|H1|Bx|T;"},
      {"HTTP/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
       "200 OK|1.0|ka|length|H2|Bx|T;"},
      {"Connection: close", ok + "Connection: close\r\nContent-Length: 1\r\n\r\nx", "200 OK|1.1|close|length|H2|Bx|T;"},
      {"an empty reason with its space", "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", "404 |1.1|ka|none|H1|B|T;"},
      {"no reason and no space", "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", "404 |1.1|ka|none|H1|B|T;"},
      {"HTTP/1.2 is read as 1.1", "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n", "200 OK|1.1|ka|none|H1|B|T;"},
      {"a clean close between responses", ok + "Content-Length: 1\r\n\r\nx", "200 OK|1.1|ka|length|H1|Bx|T;", "GET",
       true},
  });
}

TEST_CASE("the response parser refuses malformed and smuggling-shaped responses", "[http][response]") {
  check_rows({
      {"CL and TE", ok + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
       "E502 both Content-Length and Transfer-Encoding"},
      {"duplicate Content-Length", ok + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx",
       "E502 more than one Content-Length"},
      {"Content-Length list", ok + "Content-Length: 1, 1\r\n\r\nx", "E502 malformed Content-Length"},
      {"signed Content-Length", ok + "Content-Length: +1\r\n\r\nx", "E502 malformed Content-Length"},
      {"chunked not last", ok + "Transfer-Encoding: chunked, gzip\r\n\r\n",
       "E502 chunked is not the final transfer coding"},
      {"gzip under chunked", ok + "Transfer-Encoding: gzip, chunked\r\n\r\n", "E502 unsupported transfer coding"},
      {"TE on HTTP/1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
       "E502 Transfer-Encoding in an HTTP/1.0 message"},
      {"bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "E502 line not ended by CRLF"},
      {"HTTP/2 status line", "HTTP/2.0 200 OK\r\n\r\n", "E502 malformed status line"},
      {"two-digit status", "HTTP/1.1 20 OK\r\n\r\n", "E502 malformed status code"},
      {"status below 100", "HTTP/1.1 099 Odd\r\n\r\n", "E502 malformed status code"},
      {"tab after the code", "HTTP/1.1 200\tOK\r\n\r\n", "E502 malformed status line"},
      {"control in reason", std::string("HTTP/1.1 200 O\x01K\r\n\r\n"), "E502 control character in reason phrase"},
      {"folded field", ok + "A: b\r\n c\r\n\r\n", "E502 obsolete line folding"},
      {"space before colon", ok + "A : b\r\n\r\n", "E502 whitespace between field name and colon"},
      {"bad chunk size", ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\n",
       "200 OK|1.1|ka|chunked|H1E502 invalid chunk size"},
      {"chunk without CRLF", ok + "Transfer-Encoding: chunked\r\n\r\n1\r\nab",
       "200 OK|1.1|ka|chunked|H1E502 chunk data not followed by CRLF"},
      {"closed inside a fixed body", ok + "Content-Length: 5\r\n\r\nhel",
       "200 OK|1.1|ka|length|H1E502 connection closed inside a response body", "GET", true},
      {"closed inside a chunked body", ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhel",
       "200 OK|1.1|ka|chunked|H1E502 connection closed inside a response body", "GET", true},
      {"closed inside the head", "HTTP/1.1 200 OK\r\nContent-", "E502 connection closed inside a response head", "GET",
       true},
  });
}

TEST_CASE("the response parser applies the head, field and body limits", "[http][response][limits]") {
  ResponseLimits limits;
  limits.max_head_bytes = 64;
  limits.max_headers = 2;
  limits.max_body = 8;
  check_rows(
      {
          {"head too large", ok + "X: " + std::string(60, 'a') + "\r\n\r\n", "E431 response head too large"},
          {"too many fields", ok + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", "E431 too many header fields"},
          {"Content-Length past max_body", ok + "Content-Length: 9\r\n\r\n", "E413 body larger than the limit"},
          {"chunks past max_body", ok + "Transfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n4\r\n",
           "200 OK|1.1|ka|chunked|H1E413 body larger than the limit"},
          {"a body at the limit", ok + "Content-Length: 8\r\n\r\n12345678", "200 OK|1.1|ka|length|H1|B12345678|T;"},
      },
      limits);
}

TEST_CASE("the request writer frames a request and refuses what would split it", "[http][request_writer]") {
  std::string out;
  duet::http::RequestWriter w(out);
  w.start("POST", "/submit?x=1", "example.com:8080");
  w.header("Content-Type", "text/plain");
  w.body("hello");
  CHECK(out ==
        "POST /submit?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Type: text/plain\r\n"
        "Content-Length: 5\r\n\r\nhello");
  // What it writes, the server's parser reads back.
  duet::http::RequestParser parser;
  REQUIRE(parser.parse(out) == ParseEvent::head);
  CHECK(parser.head().host == "example.com:8080");
  CHECK(parser.head().content_length == 5);

  std::string get;
  duet::http::RequestWriter g(get);
  g.start("GET", "/", "h");
  g.end();
  CHECK(get == "GET / HTTP/1.1\r\nHost: h\r\n\r\n");

  std::string put;
  duet::http::RequestWriter p(put);
  p.start("PUT", "/x", "h");
  p.end();
  CHECK(put == "PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");

  std::string ch;
  duet::http::RequestWriter c(ch);
  c.start("POST", "/", "h");
  c.begin_chunked();
  c.chunk("abc");
  c.chunk("");
  c.chunk(std::string(17, 'z'));
  c.end_chunked();
  CHECK(ch == "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n11\r\n" +
                  std::string(17, 'z') + "\r\n0\r\n\r\n");

  struct Bad {
    const char* name;
    void (*call)(duet::http::RequestWriter&);
  };
  const Bad bad[] = {
      {"CRLF in a value", [](duet::http::RequestWriter& x) { x.header("A", "b\r\nEvil: 1"); }},
      {"LF in a value", [](duet::http::RequestWriter& x) { x.header("A", "b\nc"); }},
      {"colon in a name", [](duet::http::RequestWriter& x) { x.header("A:b", "c"); }},
      {"CR in a name", [](duet::http::RequestWriter& x) { x.header("A\r", "c"); }},
      {"Content-Length by hand", [](duet::http::RequestWriter& x) { x.header("content-length", "1"); }},
      {"Transfer-Encoding by hand", [](duet::http::RequestWriter& x) { x.header("Transfer-Encoding", "chunked"); }},
      {"a second Host", [](duet::http::RequestWriter& x) { x.header("Host", "other"); }},
  };
  for (const Bad& b : bad) {
    INFO(b.name);
    std::string o;
    duet::http::RequestWriter x(o);
    x.start("GET", "/", "h");
    CHECK_THROWS_AS(b.call(x), std::invalid_argument);
  }
  std::string o;
  CHECK_THROWS_AS(duet::http::RequestWriter(o).start("GET", "/a b", "h"), std::invalid_argument);
  CHECK_THROWS_AS(duet::http::RequestWriter(o).start("G T", "/", "h"), std::invalid_argument);
  CHECK_THROWS_AS(duet::http::RequestWriter(o).start("GET", "/", "h\r\nX: y"), std::invalid_argument);
  CHECK_THROWS_AS(duet::http::RequestWriter(o).end(), std::logic_error);
}
