// duet::http::ResponseParser — an incremental, zero-copy HTTP/1.1 response
// parser (RFC 9112), the client's side of RequestParser: bytes in, events out.
//
// Contract
// - The event contract of RequestParser (request_parser.hpp): parse(input)
//   returns ONE of need_more / head / body / message_end / error and
//   consumed() says how many bytes of `input` it used; the caller drops them
//   and calls again. head() views point into the caller's buffer, body() and
//   trailers() into the bytes passed to that parse(). error() is an HttpError
//   whose detail names the defect (status 502, or 413/431 past a limit).
// - A response's framing depends on its request (RFC 9112 §6.3): call
//   expect(method) before each request's response (it stays until changed).
//   No body for HEAD, 1xx, 204, 304; chunked with trailers; Content-Length
//   (duplicate, list or malformed refused, as for requests); else the body
//   runs until the connection closes: call eof() when it does.
// - An interim 1xx (100 Continue, 103) is a whole message of its own: head
//   (head().interim()), then message_end, then the final response's head.
// - eof(): the connection closed. Returns message_end when that ends a
//   close-delimited body, need_more when no response was in progress (a
//   clean close between responses), error when it cut a response short.
// - Limits are RequestLimits (max_request_line bounds the status line; head
//   bytes, field count, body size). Every line must end in CRLF.
// - One parser per connection, one thread; allocates only to grow its field arrays.
//
//   duet::http::ResponseParser parser;
//   parser.expect("GET");
//   for (auto ev = parser.parse(buf); ev != ParseEvent::need_more; ev = parser.parse(buf)) {
//     if (ev == ParseEvent::body) sink(parser.body());
//     buf.remove_prefix(parser.consumed());
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "duet/http/detail/body_decoder.hpp"
#include "duet/http/detail/field_section.hpp"
#include "duet/http/http_error.hpp"
#include "duet/http/parse_event.hpp"
#include "duet/http/response_head.hpp"

namespace duet::http {

class ResponseParser {
 public:
  explicit ResponseParser(ResponseLimits limits = {}) noexcept;

  // The method of the request whose response comes next ("HEAD": no body).
  void expect(std::string_view request_method) noexcept;

  [[nodiscard]] ParseEvent parse(std::string_view input);
  [[nodiscard]] ParseEvent eof() noexcept;

  [[nodiscard]] std::size_t consumed() const noexcept { return consumed_; }
  [[nodiscard]] const ResponseHead& head() const noexcept { return head_; }
  [[nodiscard]] std::string_view body() const noexcept { return decoder_.body(); }
  [[nodiscard]] std::span<const HeaderField> trailers() const noexcept { return decoder_.trailers(); }
  [[nodiscard]] HttpError error() const noexcept { return error_; }
  [[nodiscard]] const ResponseLimits& limits() const noexcept { return limits_; }
  // Forgets any response in progress and any error (not expect()).
  void reset() noexcept;

 private:
  enum class State : std::uint8_t { head, body, error };

  ParseEvent parse_head(std::string_view in);
  ParseEvent finish_head(std::string_view section);
  ParseEvent fail(HttpError e) noexcept;

  ResponseLimits limits_;
  State state_ = State::head;
  bool head_request_ = false;
  detail::SectionScanner scanner_;
  detail::BodyDecoder decoder_;
  std::size_t consumed_ = 0;
  ResponseHead head_;
  std::vector<HeaderField> fields_;
  HttpError error_;
};

}  // namespace duet::http
