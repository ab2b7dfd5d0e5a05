// duet::http::ResponseWriter — serialises one HTTP/1.1 response into a
// caller-supplied buffer, written once for both voices.
//
// Contract
// - Appends to `out` (a std::string the caller owns and sends): no
//   allocation beyond its growth, nothing kept between responses but a few
//   flags. Calls go start() -> header()* -> one ending: body(data);
//   end_head(length) when the caller sends the body itself (out, then its own
//   bytes: two iovecs, no copy); begin_chunked() -> chunk()* -> end_chunked();
//   or end() for no body. A 1xx other than 101 is interim: after its end()
//   the writer takes the final response's start(). Misuse (out of order, a
//   status outside 100-999, a body on 204/304/1xx) throws std::logic_error.
// - The writer owns framing and the connection: header() refuses
//   Content-Length, Transfer-Encoding and Connection (std::invalid_argument),
//   and names that are not tokens or values with CR, LF or other controls,
//   so no handler can split a response. It writes Content-Length or
//   Transfer-Encoding itself, none for 1xx/204/304, and for a HEAD request
//   the headers a GET would get without the body bytes.
// - Connection: "close" when the request asked (or was HTTP/1.0 without
//   keep-alive), after a parse error (ResponseContext::after_error()), when
//   close_connection() was called, or for a streamed body to an HTTP/1.0
//   client (which cannot read chunked: the body then ends at the close);
//   "keep-alive" for a kept HTTP/1.0 connection; "Upgrade" on a 101.
//   keep_alive() says afterwards whether the connection may carry another
//   request. One writer per response, one thread.
//
//   std::string out;
//   duet::http::ResponseWriter w(out, duet::http::ResponseContext::from(parser.head()));
//   w.start(200);
//   w.header("Content-Type", "text/plain");
//   w.body("hello");   // out: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
#pragma once

#include <cstdint>
#include <ctime>
#include <span>
#include <string>
#include <string_view>

#include "duet/http/http_error.hpp"
#include "duet/http/request_head.hpp"

namespace duet::http {

// What a response must know of its request.
struct ResponseContext {
  HttpVersion version = HttpVersion::http_1_1;
  bool head_method = false;
  bool keep_alive = true;

  static ResponseContext from(const RequestHead& request) noexcept {
    return {request.version, request.method == "HEAD", request.keep_alive};
  }
  // The request could not be parsed: the connection closes after the answer.
  static ResponseContext after_error() noexcept { return {HttpVersion::http_1_1, false, false}; }
};

class ResponseWriter {
 public:
  ResponseWriter(std::string& out, ResponseContext context) noexcept : out_(out), context_(context) {}

  // The status line; an empty reason takes status_reason(status).
  void start(int status, std::string_view reason = {});
  void header(std::string_view name, std::string_view value);
  void date(std::time_t now);
  // Connection: close on this response, whatever the request said.
  void close_connection() noexcept { close_requested_ = true; }

  void body(std::string_view data);
  void end_head(std::uint64_t content_length);
  void end();
  void begin_chunked();
  void chunk(std::string_view data);
  void end_chunked(std::span<const HeaderField> trailers = {});

  // Whether the caller sends body bytes after end_head() (not for HEAD, 1xx, 204, 304).
  [[nodiscard]] bool body_allowed() const noexcept;
  [[nodiscard]] bool keep_alive() const noexcept { return keep_alive_; }
  [[nodiscard]] bool done() const noexcept { return state_ == State::done; }

 private:
  enum class State : std::uint8_t { idle, headers, chunked, done };

  void require(State s) const;
  void check_field(std::string_view name, std::string_view value) const;
  // The connection header and the blank line; settles keep_alive_.
  void finish_head(bool close_delimited);
  void append_number(std::uint64_t n, int base = 10);

  std::string& out_;
  ResponseContext context_;
  State state_ = State::idle;
  int status_ = 0;
  bool close_requested_ = false;
  bool close_delimited_ = false;
  bool keep_alive_ = false;
};

// "HTTP/1.1 100 Continue\r\n\r\n": lets a client that sent Expect: 100-continue send its body.
void write_continue(std::string& out);

// A complete answer to a request the parser refused: the error's status, a
// plain-text body naming the defect, Connection: close.
void write_error_response(std::string& out, const HttpError& error);

}  // namespace duet::http
