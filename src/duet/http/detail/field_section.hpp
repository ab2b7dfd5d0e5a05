// duet::http::detail — finding and splitting a field section (a request head,
// or a chunked body's trailers): the part of the parser both share.
//
// Contract
// - SectionScanner looks for the blank line that ends a section starting at
//   in[0], resuming where the previous call stopped (so feeding a head byte by
//   byte costs O(n), not O(n^2)); `in` must hold the same bytes again plus
//   any that arrived since. Every line must end in CRLF: a bare LF is an
//   error (strict: RFC 9112 §2.2 lets a recipient accept it, we do not, as a
//   lone LF is where parsers disagree and smuggling begins).
// - Its limits are checked on every prefix in order, so a section fed whole
//   and fed in pieces meets the same error: the first line's length (CR
//   included) against max_first_line, then the section's size against
//   max_total, then the bare LF.
// - parse_fields() checks each line of a complete section (RFC 9110 §5,
//   RFC 9112 §5) and appends views of the fields to `out`.
//
//   SectionScanner s;
//   if (s.run(in, 8190, 8192) == SectionScanner::Result::found) use(in.substr(0, s.end));
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "duet/http/http_error.hpp"
#include "duet/http/request_head.hpp"

namespace duet::http::detail {

class SectionScanner {
 public:
  enum class Result { more, found, bare_lf, first_line_too_long, too_large };

  // max_first_line 0: no limit on the first line (trailers have none).
  Result run(std::string_view in, std::size_t max_first_line, std::size_t max_total) noexcept;
  void reset() noexcept { *this = SectionScanner{}; }
  bool started() const noexcept { return scan_ != 0; }

  std::size_t end() const noexcept { return end_; }                    // bytes of the section, blank line included
  std::size_t first_line_end() const noexcept { return first_line_; }  // index of the first line's CR

 private:
  std::size_t scan_ = 0;
  std::size_t line_start_ = 0;
  std::size_t first_line_ = 0;
  bool first_done_ = false;
  std::size_t end_ = 0;
};

// Parses the field lines of `lines` (each ending in CRLF, the blank line not
// included) into `out`. Errors: 400 for an obsolete line fold, a field name
// that is not a token, whitespace before the colon, a control character
// (bare CR included) in a value; 431 past max_fields.
HttpError parse_fields(std::string_view lines, std::size_t max_fields, std::vector<HeaderField>& out);

}  // namespace duet::http::detail
