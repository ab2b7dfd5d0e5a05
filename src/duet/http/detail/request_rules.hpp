// duet::http::detail — what a complete request head means: the request line
// (RFC 9112 §3) and the fields that decide framing and the connection
// (Content-Length, Transfer-Encoding, Host, Connection, Expect).
//
// Contract
// - Both functions fill a RequestHead from views into the head's bytes and
//   return {} or the error to answer with. judge_fields() is where every
//   request-smuggling defence lives: one place to read them all.
// - Pure functions of their input: any thread.
//
//   if (auto e = parse_request_line(line, head); e.status) fail(e);
//   if (auto e = judge_fields(head, max_body); e.status) fail(e);
#pragma once

#include <cstdint>
#include <string_view>

#include "duet/http/http_error.hpp"
#include "duet/http/request_head.hpp"

namespace duet::http::detail {

// method SP request-target SP HTTP-version, exactly one SP each, no CR/LF.
HttpError parse_request_line(std::string_view line, RequestHead& head);

// Reads head.headers and sets body, content_length, host, keep_alive,
// expect_continue and upgrade.
HttpError judge_fields(RequestHead& head, std::uint64_t max_body);

// Parses 1*DIGIT into a uint64 (no sign, no space, no list); false if not
// that or past 2^64-1. Shared with the chunk-size parser's overflow rule.
bool parse_decimal(std::string_view s, std::uint64_t& out) noexcept;

// chunk-size [ chunk-ext ] of one chunk line, its CRLF removed (RFC 9112
// §7.1.1): 1*HEXDIG fitting in 64 bits, then *( BWS ";" BWS name
// [ BWS "=" BWS ( token / quoted-string ) ] ) of at most max_extension bytes.
HttpError parse_chunk_line(std::string_view line, std::size_t max_extension, std::uint64_t& size);

}  // namespace duet::http::detail
