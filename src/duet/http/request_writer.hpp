// duet::http::RequestWriter — serialises one HTTP/1.1 request into a
// caller-supplied buffer, the client's side of ResponseWriter.
//
// Contract
// - Appends to `out` (a std::string the caller owns and sends). Calls go
//   start(method, target, host) -> header()* -> one ending: body(data)
//   (Content-Length, also "0" for an empty body of a method that carries
//   one: POST, PUT, PATCH), end() for no body, or begin_chunked() ->
//   chunk()* -> end_chunked(). Out of order: std::logic_error.
// - The writer owns framing: header() refuses Host, Content-Length and
//   Transfer-Encoding (std::invalid_argument); a method that is not a token,
//   a target with a space or a control character, a field name that is not
//   a token, a value with CR, LF or another control are refused likewise, so
//   no caller can split a request. Connection may be set by the caller
//   ("close" asks the server to close after its response).
// - A plain value over a reference: one thread.
//
//   std::string out;
//   duet::http::RequestWriter w(out);
//   w.start("GET", "/index.html", "example.com");
//   w.header("Accept", "text/html");
//   w.end();   // "GET /index.html HTTP/1.1\r\nHost: example.com\r\nAccept: text/html\r\n\r\n"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace duet::http {

class RequestWriter {
 public:
  explicit RequestWriter(std::string& out) noexcept : out_(out) {}

  void start(std::string_view method, std::string_view target, std::string_view host);
  void header(std::string_view name, std::string_view value);
  void body(std::string_view data);
  void end();
  void begin_chunked();
  void chunk(std::string_view data);
  void end_chunked();

 private:
  enum class State : std::uint8_t { idle, headers, chunked, done };

  void require(State s) const;

  std::string& out_;
  State state_ = State::idle;
  bool body_method_ = false;  // POST, PUT, PATCH: an empty body still says Content-Length: 0
};

}  // namespace duet::http
