// duet::http::detail — the fields that frame a message and steer its
// connection (Content-Length, Transfer-Encoding, Connection), read the same
// way for a request (request_rules.cpp) and a response (response_rules.cpp).
//
// Contract
// - gather_framing() reads every field once and writes down what it saw;
//   judging is separate, because a request and a response draw different
//   conclusions from the same facts (a response may be read until the close).
// - judge_transfer_encoding() and judge_content_length() are the smuggling
//   defences both directions share: TE with CL, TE on HTTP/1.0, chunked not
//   last or twice, a coding we do not decode, a CL list, a duplicate or a
//   malformed CL. The statuses are a server's answers (400, 413, 501); a
//   client reads them as "refused".
// - Pure functions of their input: any thread.
//
//   MessageFraming f = gather_framing(head.headers);
//   if (f.te_seen) { if (auto e = judge_transfer_encoding(f, version); e.status) fail(e); }
//   else if (f.content_lengths) { if (auto e = judge_content_length(f, max_body); e.status) fail(e); }
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "duet/http/http_error.hpp"
#include "duet/http/request_head.hpp"

namespace duet::http::detail {

// What the fields said, gathered in one pass, judged after it.
struct MessageFraming {
  int content_lengths = 0;
  bool content_length_bad = false;
  std::uint64_t content_length = 0;
  bool te_seen = false;
  int te_codings = 0;
  bool te_last_chunked = false;
  bool te_chunked_not_last = false;  // chunked followed by a coding, or chunked twice
  bool te_bad = false;               // not a token, or chunked with parameters
  bool te_unsupported = false;       // a coding other than chunked (we decode none)
  int hosts = 0;
  std::string_view host;  // the last Host field's value
  bool conn_close = false, conn_keep_alive = false, conn_upgrade = false;
  bool upgrade_field = false;
  bool expect_continue = false, expect_other = false;
};

[[nodiscard]] MessageFraming gather_framing(std::span<const HeaderField> fields);

// Transfer-Encoding is present: {} if it is exactly "chunked" and may be used.
[[nodiscard]] HttpError judge_transfer_encoding(const MessageFraming& f, HttpVersion version);

// Content-Length is present (and no Transfer-Encoding): {} if it is one
// valid decimal not past max_body.
[[nodiscard]] HttpError judge_content_length(const MessageFraming& f, std::uint64_t max_body);

// RFC 9112 §9.3: persistence by version and the Connection options.
[[nodiscard]] inline bool keeps_alive(const MessageFraming& f, HttpVersion version) noexcept {
  return version == HttpVersion::http_1_1 ? !f.conn_close : f.conn_keep_alive && !f.conn_close;
}

}  // namespace duet::http::detail
