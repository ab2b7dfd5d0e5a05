// duet::http::detail — what a complete response head means: the status line
// (RFC 9112 §4) and the framing of its body (RFC 9112 §6.3).
//
// Contract
// - Both fill a ResponseHead from views into the head's bytes and return {}
//   or the defect (status 502: the peer sent something a client must refuse).
//   judge_response_fields() reuses the request side's framing defences
//   (message_framing.hpp): TE with CL, duplicate or malformed CL, chunked not
//   last, a coding duet does not decode. Stricter than §6.3 item 4: a
//   Transfer-Encoding other than chunked is refused, not read until close.
// - Pure functions of their input: any thread.
//
//   if (auto e = parse_status_line(line, head); e.status) fail(e);
//   if (auto e = judge_response_fields(head, request_was_head, max_body); e.status) fail(e);
#pragma once

#include <cstdint>
#include <string_view>

#include "duet/http/http_error.hpp"
#include "duet/http/response_head.hpp"

namespace duet::http::detail {

// HTTP-version SP 3DIGIT SP reason-phrase; a missing SP after the code (an
// empty reason, as some servers send it) is accepted. HTTP/1.x with x > 1 is
// read as HTTP/1.1 (RFC 9110 §2.5); any other version is refused.
HttpError parse_status_line(std::string_view line, ResponseHead& head);

// Reads head.headers, sets body, content_length and keep_alive.
HttpError judge_response_fields(ResponseHead& head, bool head_request, std::uint64_t max_body);

}  // namespace duet::http::detail
