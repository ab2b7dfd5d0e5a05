// duet::http::ResponseHead — a parsed status line and header section, as
// views into the bytes it was parsed from (the client's side of RequestHead).
//
// Contract
// - Made by ResponseParser (response_parser.hpp) once a whole head has
//   arrived; reason and every HeaderField point into the caller's input
//   buffer, `headers` into the parser's reusable field array: valid until
//   the caller moves those bytes or the parser parses the next head.
// - Framing is already judged (RFC 9112 §6.3): body says how the body is
//   delimited (none for a HEAD request, 1xx, 204 and 304; until_close when
//   neither Content-Length nor Transfer-Encoding frames it), keep_alive
//   whether the connection may carry another request after this response.
// - headers keeps every field in arrival order; find() is a case-insensitive
//   lookup of the first one. A plain value: any thread that owns it.
//
//   if (parser.parse(buf) == ParseEvent::head) {
//     const ResponseHead& h = parser.head();
//     if (h.status == 200) type = h.find("content-type");
//   }
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "duet/http/request_head.hpp"

namespace duet::http {

enum class ResponseBody : std::uint8_t { none, content_length, chunked, until_close };

struct ResponseHead {
  int status = 0;           // 100-999
  std::string_view reason;  // may be empty
  HttpVersion version = HttpVersion::http_1_1;
  ResponseBody body = ResponseBody::none;
  std::uint64_t content_length = 0;  // when body == content_length
  bool keep_alive = true;
  std::span<const HeaderField> headers;

  // 1xx other than 101: an interim response; the final one follows.
  [[nodiscard]] bool interim() const noexcept { return status >= 100 && status < 200 && status != 101; }
  [[nodiscard]] std::string_view find(std::string_view name) const noexcept;
  [[nodiscard]] bool has(std::string_view name) const noexcept;
};

}  // namespace duet::http
