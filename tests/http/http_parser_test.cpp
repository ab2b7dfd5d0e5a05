// RequestParser conformance (RFC 9112): every smuggling defence, every
// malformed line and every limit, and good requests of each shape, each fed
// whole, byte by byte and at seeded random split points (http_feed.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "duet/http/request_parser.hpp"
#include "http_feed.hpp"

using http_test::feed_every_way;

namespace {

struct Refused {
  const char* name;
  std::string input;
  int status;
};

const std::string get = "GET / HTTP/1.1\r\nHost: a\r\n";
const std::string post = "POST / HTTP/1.1\r\nHost: a\r\n";
const std::string chunked = post + "Transfer-Encoding: chunked\r\n\r\n";

void check_refused(const std::vector<Refused>& table, duet::http::RequestLimits limits = {}) {
  for (const Refused& c : table) {
    INFO(c.name);
    std::string got = feed_every_way(c.input, limits);
    // The error ends the transcript (after the head, for a body's defect).
    std::size_t at = got.find("E" + std::to_string(c.status) + " ");
    CHECK(at != std::string::npos);
    CHECK((at == 0 || got.compare(at - 2, 2, "H2") == 0));
  }
}

}  // namespace

TEST_CASE("the parser refuses every request-smuggling shape with the right status", "[http][parser]") {
  check_refused({
      {"Content-Length and Transfer-Encoding", post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"Transfer-Encoding and Content-Length", post + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 400},
      {"duplicate equal Content-Length", post + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400},
      {"conflicting Content-Length", post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400},
      {"Content-Length list", post + "Content-Length: 5, 6\r\n\r\nhello!", 400},
      {"Content-Length list of equal values", post + "Content-Length: 5, 5\r\n\r\nhello", 400},
      {"Content-Length with a plus sign", post + "Content-Length: +5\r\n\r\nhello", 400},
      {"negative Content-Length", post + "Content-Length: -1\r\n\r\n", 400},
      {"Content-Length with a space inside", post + "Content-Length: 1 0\r\n\r\n0123456789", 400},
      {"hexadecimal Content-Length", post + "Content-Length: 0x5\r\n\r\nhello", 400},
      {"empty Content-Length", post + "Content-Length:\r\n\r\n", 400},
      {"Content-Length past 2^64", post + "Content-Length: 18446744073709551616\r\n\r\n", 400},
      {"Content-Length of twenty nines", post + "Content-Length: 99999999999999999999\r\n\r\n", 400},
      {"unknown coding alone", post + "Transfer-Encoding: gzip\r\n\r\n", 400},
      {"chunked before another coding", post + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400},
      {"chunked twice", post + "Transfer-Encoding: chunked, chunked\r\n\r\n", 400},
      {"chunked then a second field", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400},
      {"a coding before chunked", post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501},
      {"a coding before chunked over two fields", post + "Transfer-Encoding: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
      {"chunked lookalike", post + "Transfer-Encoding: xchunked\r\n\r\n", 400},
      {"chunked with a parameter", post + "Transfer-Encoding: chunked;q=1\r\n\r\n", 400},
      {"empty Transfer-Encoding", post + "Transfer-Encoding: \r\n\r\n", 400},
      {"Transfer-Encoding not a token", post + "Transfer-Encoding: \"chunked\"\r\n\r\n", 400},
      {"Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
      {"obsolete line folding", get + "X-A: one\r\n two\r\n\r\n", 400},
      {"obsolete line folding with a tab", get + "X-A: one\r\n\ttwo\r\n\r\n", 400},
      {"folded Transfer-Encoding", post + "Transfer-Encoding:\r\n chunked\r\n\r\n", 400},
      {"bare CR inside a value", get + "X-A: a\rb\r\n\r\n", 400},
      {"bare CR ending a field line", get + "X-A: a\r\rX-B: b\r\n\r\n", 400},
      {"bare CR in the request line", "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"bare LF ending every line", "GET / HTTP/1.1\nHost: a\n\n", 400},
      {"bare LF ending a field line", get + "X-A: a\n\r\n", 400},
      {"bare LF ending the head", get + "\n", 400},
      {"whitespace between name and colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400},
      {"tab between name and colon", post + "Content-Length\t: 5\r\n\r\nhello", 400},
      {"invalid character in a name", get + "X(A): a\r\n\r\n", 400},
      {"non-ASCII name", get + "X-\xc3\xa9: a\r\n\r\n", 400},
      {"empty name", get + ": a\r\n\r\n", 400},
      {"field line without a colon", get + "X-A\r\n\r\n", 400},
      {"NUL in a value", get + std::string("X-A: a\0b\r\n\r\n", 12), 400},
      {"control character in a value", get + "X-A: a\x01\r\n\r\n", 400},
      {"DEL in a value", get + "X-A: a\x7f\r\n\r\n", 400},
  });
}

TEST_CASE("the parser refuses malformed request lines", "[http][parser]") {
  check_refused({
      {"two spaces after the method", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"two spaces after the target", "GET /  HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"space after the version", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400},
      {"space before the method", " GET / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"tabs as separators", "GET\t/\tHTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"no version", "GET /\r\nHost: a\r\n\r\n", 400},
      {"method only", "GET\r\n\r\n", 400},
      {"invalid method character", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"lower-case protocol name", "GET / http/1.1\r\nHost: a\r\n\r\n", 400},
      {"version without a dot", "GET / HTTP/11\r\nHost: a\r\n\r\n", 400},
      {"version with a suffix", "GET / HTTP/1.1x\r\nHost: a\r\n\r\n", 400},
      {"HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505},
      {"HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505},
      {"relative target", "GET foo HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"asterisk on GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"authority-form on CONNECT", "CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n", 501},
      {"absolute-form without //", "GET http:/x HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"absolute-form without authority", "GET http:///p HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"non-ASCII target", "GET /\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"DEL in the target", "GET /\x7f HTTP/1.1\r\nHost: a\r\n\r\n", 400},
      {"missing Host in HTTP/1.1", "GET / HTTP/1.1\r\n\r\n", 400},
      {"two Host fields", get + "Host: b\r\n\r\n", 400},
      {"two equal Host fields", get + "Host: a\r\n\r\n", 400},
      {"Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
      {"Host with a path", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400},
      {"Host with user info", "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", 400},
      {"unknown expectation", get + "Expect: 200-ok\r\n\r\n", 417},
  });
}

TEST_CASE("the parser refuses malformed chunked bodies", "[http][parser]") {
  check_refused({
      {"non-hex chunk size", chunked + "zz\r\n", 400},
      {"empty chunk size", chunked + "\r\n", 400},
      {"negative chunk size", chunked + "-5\r\nhello\r\n0\r\n\r\n", 400},
      {"0x prefix", chunked + "0x5\r\nhello\r\n0\r\n\r\n", 400},
      {"chunk size past 64 bits", chunked + "10000000000000000\r\n", 400},
      {"chunk size of seventeen f", chunked + "fffffffffffffffff\r\n", 400},
      {"chunk data without CRLF", chunked + "5\r\nhelloX\r\n0\r\n\r\n", 400},
      {"chunk data followed by CR only", chunked + "5\r\nhello\rX0\r\n\r\n", 400},
      {"chunk data followed by bare LF", chunked + "5\r\nhello\n0\r\n\r\n", 400},
      {"chunk line ended by bare LF", chunked + "5\nhello\r\n0\r\n\r\n", 400},
      {"space before the chunk line's CRLF", chunked + "5 \r\nhello\r\n0\r\n\r\n", 400},
      {"extension without a name", chunked + "5;\r\nhello\r\n0\r\n\r\n", 400},
      {"extension with an empty value", chunked + "5;a=\r\nhello\r\n0\r\n\r\n", 400},
      {"extension with an open quote", chunked + "5;a=\"b\r\nhello\r\n0\r\n\r\n", 400},
      {"extension not after a semicolon", chunked + "5 a\r\nhello\r\n0\r\n\r\n", 400},
      {"folded trailer", chunked + "0\r\nX-T: a\r\n b\r\n\r\n", 400},
      {"trailer ended by bare LF", chunked + "0\r\nX-T: a\n\r\n", 400},
      {"trailer section ended by bare LF", chunked + "0\r\n\n", 400},
      {"trailer with space before colon", chunked + "0\r\nX-T : a\r\n\r\n", 400},
  });
}

TEST_CASE("the parser accepts good requests of each shape, however they are split", "[http][parser]") {
  struct Good {
    std::string input, transcript;
  };
  const std::vector<Good> table{
      {get + "\r\n", "GET /|/||a|1.1|ka|H1|B|T;"},
      {"GET /p/q?x=1&y HTTP/1.1\r\nHost: a:8080\r\nUser-Agent: t\r\n\r\n", "GET /p/q?x=1&y|/p/q|x=1&y|a:8080|1.1|ka|H2|B|T;"},
      {"GET http://a.example/p?q HTTP/1.1\r\nHost: b\r\n\r\n", "GET http://a.example/p?q|/p|q|b|1.1|ka|H1|B|T;"},
      {"GET http://a.example HTTP/1.1\r\nHost: a.example\r\n\r\n", "GET http://a.example|/||a.example|1.1|ka|H1|B|T;"},
      {"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", "OPTIONS *|*||a|1.1|ka|H1|B|T;"},
      {"GET / HTTP/1.0\r\n\r\n", "GET /|/|||1.0|close|H0|B|T;"},
      {"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET /|/|||1.0|ka|H1|B|T;"},
      {"GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", "GET /|/|||1.0|close|H1|B|T;"},
      {get + "Connection: close\r\n\r\n", "GET /|/||a|1.1|close|H2|B|T;"},
      {get + "Connection: foo\r\nConnection: CLOSE\r\n\r\n", "GET /|/||a|1.1|close|H3|B|T;"},
      {get + "Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n", "GET /|/||a|1.1|ka|up|H3|B|T;"},
      {get + "Upgrade: websocket\r\n\r\n", "GET /|/||a|1.1|ka|H2|B|T;"},
      {post + "Content-Length: 5\r\n\r\nhello", "POST /|/||a|1.1|ka|H2|Bhello|T;"},
      {post + "Content-Length: \t 005 \r\n\r\nhello", "POST /|/||a|1.1|ka|H2|Bhello|T;"},
      {post + "Content-Length: 0\r\n\r\n", "POST /|/||a|1.1|ka|H2|B|T;"},
      {post + "Transfer-Encoding: CHUNKED \r\n\r\n5\r\nhello\r\n0\r\n\r\n", "POST /|/||a|1.1|ka|H2|Bhello|T;"},
      {chunked + "5;a=b;c=\"d\\\"e\" ; f\r\nhello\r\nA\r\n0123456789\r\n000\r\n\r\n",
       "POST /|/||a|1.1|ka|H2|Bhello0123456789|T;"},
      {chunked + "3\r\nabc\r\n0;end\r\nX-Sum: 12\r\nX-Other:v \r\n\r\n", "POST /|/||a|1.1|ka|H2|Babc|TX-Sum:12,X-Other:v,;"},
      {post + "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", "E501 unsupported transfer coding"},
      {post + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", "POST /|/||a|1.1|ka|ec|H3|Bhi|T;"},
      {"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", "POST /|/|||1.0|close|H2|Bhi|T;"},
      {"\r\n\r\n" + get + "\r\n", "GET /|/||a|1.1|ka|H1|B|T;"},
      {get + "X-A:  a b\t \r\nX-B:\r\nX-C: \x80\xff\r\n\r\n", "GET /|/||a|1.1|ka|H4|B|T;"},
      {get + "X-A: a\r\n", "N"},
      {post + "Content-Length: 5\r\n\r\nhel", "POST /|/||a|1.1|ka|H2N"},
      {chunked + "5\r\nhello\r\n", "POST /|/||a|1.1|ka|H2N"},
  };
  for (const Good& g : table) CHECK(feed_every_way(g.input) == g.transcript);
}

TEST_CASE("pipelined requests in one buffer come out one after another", "[http][parser]") {
  std::string input = get + "\r\n" + post + "Content-Length: 3\r\n\r\nabc" + chunked + "2\r\nde\r\n0\r\nT: 1\r\n\r\n" +
                      "\r\nGET /last HTTP/1.1\r\nHost: z\r\nConnection: close\r\n\r\n";
  CHECK(feed_every_way(input) ==
        "GET /|/||a|1.1|ka|H1|B|T;POST /|/||a|1.1|ka|H2|Babc|T;POST /|/||a|1.1|ka|H2|Bde|TT:1,;"
        "GET /last|/last||z|1.1|close|H2|B|T;");
  // An error in the third stops there, after the first two.
  std::string bad = get + "\r\n" + get + "\r\n" + "GET / HTTP/1.1\r\nHost: a\r\nX : y\r\n\r\n" + get + "\r\n";
  CHECK(feed_every_way(bad) == "GET /|/||a|1.1|ka|H1|B|T;GET /|/||a|1.1|ka|H1|B|T;E400 whitespace between field name and colon");
}
