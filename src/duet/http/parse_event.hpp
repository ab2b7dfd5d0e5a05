// duet::http::ParseEvent and RequestLimits — what the sans-I/O HTTP/1.1
// parsers report (RequestParser, ResponseParser: see request_parser.hpp for
// the contract of each event) and the limits they apply to a message.
//
// Contract
// - Plain values, any thread. ResponseLimits is the same struct: for a
//   response, max_request_line bounds the status line.
//
//   duet::http::RequestLimits limits;
//   limits.max_body = 1 << 20;
//   duet::http::ResponseParser parser(limits);
#pragma once

#include <cstddef>
#include <cstdint>

namespace duet::http {

struct RequestLimits {
  std::size_t max_request_line = 8 * 1024;      // 414 past it (CRLF not counted)
  std::size_t max_head_bytes = 16 * 1024;       // request line + fields + CRLFs; 431 past it (also for trailers)
  std::size_t max_headers = 100;                // fields in a head or a trailer section; 431 past it
  std::uint64_t max_body = 8ull * 1024 * 1024;  // decoded body bytes; 413 past it
  std::size_t max_chunk_extension = 256;        // bytes after a chunk size, before its CRLF; 400 past it
};

enum class ParseEvent : std::uint8_t { need_more, head, body, message_end, error };

using ResponseLimits = RequestLimits;

}  // namespace duet::http
