// duet::http::UpgradeResponse / parse_upgrade_response — the head of an HTTP/1.1
// response, read by a client: the status line and the fields, nothing of the
// body. Written once for both voices (the WebSocket clients read the 101 with it).
//
// Contract
// - parse_upgrade_response(in, max_bytes, fields, out) looks for a whole head at
//   the start of `in` (the bytes received so far): need_more until the blank
//   line has arrived, then head (out filled, consumed() the head's size) or
//   error (a line not ending in CRLF, a head past max_bytes, a status line not
//   "HTTP/1.x DDD reason", a malformed field). Strict: a client trusts only a
//   well-formed answer. Body framing is not judged: the caller knows what it asked.
// - Views point into `in` and `fields` (the caller's, reused across calls).
//   A plain function over the caller's bytes; any thread.
//
//   std::vector<duet::http::HeaderField> fields;
//   duet::http::UpgradeResponse head;
//   auto r = duet::http::parse_upgrade_response(received, 16 * 1024, fields, head);
//   if (r.status == duet::http::UpgradeResponseParse::Status::head && head.status == 101) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "duet/http/request_head.hpp"

namespace duet::http {

struct UpgradeResponse {
  HttpVersion version = HttpVersion::http_1_1;
  int status = 0;
  std::string_view reason;
  std::span<const HeaderField> headers;

  // The first field named `name` (ASCII case-insensitive), or an empty view.
  [[nodiscard]] std::string_view find(std::string_view name) const noexcept;
};

struct UpgradeResponseParse {
  enum class Status : std::uint8_t { need_more, head, error };
  Status status = Status::need_more;
  std::size_t consumed = 0;  // head: the head's bytes, blank line included
  std::string_view error;    // error: what was wrong (static text)
};

[[nodiscard]] UpgradeResponseParse parse_upgrade_response(std::string_view in, std::size_t max_bytes,
                                                    std::vector<HeaderField>& fields, UpgradeResponse& out);

}  // namespace duet::http
