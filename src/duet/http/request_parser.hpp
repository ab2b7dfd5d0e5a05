// duet::http::RequestParser — an incremental, zero-copy HTTP/1.1 request
// parser (RFC 9112), written once for both voices: bytes in, events out.
//
// Why our own: Debian 12 packages no parser that fits. It has no llhttp nor
// picohttpparser package; http-parser (libhttp-parser-dev) is unmaintained
// upstream; libhtp is an IDS normaliser that tolerates what a server must
// refuse. This one is strict where smuggling lives (see detail/request_rules).
//
// Contract
// - parse(input) looks at the start of `input`, the bytes the caller has not
//   yet consumed, and returns ONE event; consumed() then says how many of
//   those bytes it used. After EVERY event the caller drops consumed() bytes
//   from the front and calls parse() again with the rest plus whatever
//   arrived, until need_more (receive, then call again) or error:
//     need_more    nothing to report until more bytes arrive. The parser
//                  keeps its progress: the next call must pass the same
//                  unconsumed bytes again (they may have moved) and more.
//     head         head() holds the request line and fields. The head is
//                  only parsed once all of it is in `input`.
//     body         body() is the next piece of the (de-chunked) body, a view
//                  into `input`; chunk framing is consumed along with it.
//     message_end  the request is complete (always reported, also for no
//                  body); trailers() holds a chunked body's trailer fields.
//                  The next parse() starts the next pipelined request.
//     error        error() says what to answer (400, 413, 414, 431, 417, 501,
//                  505). Send it with Connection: close and close: the parser
//                  stays in error until reset().
// - Lifetimes: head() views point at the head's bytes in the caller's
//   buffer, body() and trailers() at the bytes passed to that parse(). The
//   caller keeps the head's bytes where they are while it uses the head (a
//   driver typically does not compact its buffer before the body is read),
//   or moves head_bytes() and calls relocate_head(). Nothing is copied.
// - Strictness: every line must end in CRLF (a bare LF is refused, not
//   tolerated); leading empty lines before a request line are skipped
//   (RFC 9112 §2.2). Limits (RequestLimits) are checked on every prefix, so
//   any split of the same bytes gives the same events and the same error.
// - Expect: 100-continue: head().expect_continue; the server may send
//   "100 Continue" (write_continue) before reading the body, or answer
//   without reading it and close.
// - One parser per connection, used by one thread. It allocates only to grow
//   its field arrays (kept across requests).
//
//   duet::http::RequestParser parser;
//   for (auto ev = parser.parse(buf); ev != ParseEvent::need_more; ev = parser.parse(buf)) {
//     if (ev == ParseEvent::head) route(parser.head()); else if (ev == ParseEvent::body) sink(parser.body());
//     buf.remove_prefix(parser.consumed());   // but keep the head's bytes in place while it is used
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
#include "duet/http/request_head.hpp"

namespace duet::http {

class RequestParser {
 public:
  explicit RequestParser(RequestLimits limits = {}) noexcept;

  [[nodiscard]] ParseEvent parse(std::string_view input);

  [[nodiscard]] std::size_t consumed() const noexcept { return consumed_; }
  [[nodiscard]] const RequestHead& head() const noexcept { return head_; }
  [[nodiscard]] std::string_view body() const noexcept { return decoder_.body(); }
  [[nodiscard]] std::span<const HeaderField> trailers() const noexcept { return decoder_.trailers(); }
  [[nodiscard]] HttpError error() const noexcept { return error_; }
  [[nodiscard]] const RequestLimits& limits() const noexcept { return limits_; }

  // Body bytes of the current request still expected (Content-Length), or
  // not yet known (chunked: 0 until a chunk size is read).
  [[nodiscard]] std::uint64_t body_remaining() const noexcept { return decoder_.remaining(); }

  // The bytes the current head was parsed from (head() points into them).
  [[nodiscard]] std::string_view head_bytes() const noexcept { return head_bytes_; }
  // After the caller moved (or copied) head_bytes() to new_start, repoints
  // head() and its fields there.
  void relocate_head(const char* new_start) noexcept;
  // Forgets any request in progress and any error.
  void reset() noexcept;

 private:
  enum class State : std::uint8_t { head, body, error };

  ParseEvent parse_head(std::string_view in);
  ParseEvent finish_head(std::string_view section);
  ParseEvent fail(HttpError e) noexcept;
  ParseEvent scan_error(detail::SectionScanner::Result r) noexcept;

  RequestLimits limits_;
  State state_ = State::head;
  detail::SectionScanner scanner_;
  detail::BodyDecoder decoder_;
  std::size_t consumed_ = 0;
  RequestHead head_;
  std::vector<HeaderField> fields_;
  std::string_view head_bytes_;
  HttpError error_;
};

}  // namespace duet::http
