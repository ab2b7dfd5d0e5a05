// duet::http::HttpError — why a request was refused: the status code to answer
// with and a short reason, plus the standard reason phrase of each status.
//
// Contract
// - A value: status is the response's code (400, 413, 414, 431, 501, 505...),
//   detail a static string naming the defect ("both Content-Length and
//   Transfer-Encoding"), fit for a log line or a plain-text error body. It
//   never points into the request, so it outlives the bytes that caused it.
// - status_reason(code) is the reason phrase of RFC 9110 §15 ("Bad Request"),
//   "Unknown" for codes it does not know. Both are usable from any thread.
//
//   if (parser.parse(bytes) == duet::http::ParseEvent::error) {
//     duet::http::HttpError e = parser.error();
//     duet::http::write_error_response(out, e);  // "HTTP/1.1 400 Bad Request" ... close
//   }
#pragma once

#include <string_view>

namespace duet::http {

struct HttpError {
  int status = 0;
  std::string_view detail;

  friend bool operator==(const HttpError&, const HttpError&) = default;
};

[[nodiscard]] std::string_view status_reason(int status) noexcept;

}  // namespace duet::http
