#include "duet/http/detail/field_section.hpp"

#include <cstring>

#include "duet/http/detail/http_chars.hpp"

namespace duet::http::detail {

SectionScanner::Result SectionScanner::run(std::string_view in, std::size_t max_first_line,
                                           std::size_t max_total) noexcept {
  // The checks of a prefix of length n: the limits, in this order. Applied at
  // every LF (to the bytes before it) and at the end of the input, which is
  // what keeps the first error the same however the input is split.
  auto check = [&](std::size_t n) {
    if (!first_done_ && max_first_line != 0 && n > max_first_line) return Result::first_line_too_long;
    if (n > max_total) return Result::too_large;
    return Result::more;
  };
  while (scan_ < in.size()) {
    const void* hit = std::memchr(in.data() + scan_, '\n', in.size() - scan_);
    if (hit == nullptr) break;
    std::size_t lf = static_cast<std::size_t>(static_cast<const char*>(hit) - in.data());
    if (Result r = check(lf); r != Result::more) return r;
    if (lf + 1 > max_total) return Result::too_large;
    if (lf == line_start_ || in[lf - 1] != '\r') return Result::bare_lf;
    scan_ = lf + 1;
    if (lf - 1 == line_start_) {  // the blank line
      end_ = scan_;
      return Result::found;
    }
    if (!first_done_) {
      first_done_ = true;
      first_line_ = lf - 1;
    }
    line_start_ = scan_;
  }
  scan_ = in.size();
  return check(in.size());
}

namespace {

HttpError parse_field_line(std::string_view line, std::vector<HeaderField>& out) {
  if (is_ows(line.front())) return {400, "obsolete line folding"};
  std::size_t colon = 0;
  while (colon < line.size() && is_tchar(line[colon])) ++colon;
  if (colon == line.size()) return {400, "field line without a colon"};
  if (line[colon] != ':') {
    if (is_ows(line[colon])) return {400, "whitespace between field name and colon"};
    return {400, "invalid character in field name"};
  }
  if (colon == 0) return {400, "empty field name"};
  std::string_view value = line.substr(colon + 1);
  for (char c : value)
    if (!is_field_char(c)) return {400, "control character in field value"};
  out.push_back({line.substr(0, colon), trim_ows(value)});
  return {};
}

}  // namespace

HttpError parse_fields(std::string_view lines, std::size_t max_fields, std::vector<HeaderField>& out) {
  std::size_t count = 0;
  while (!lines.empty()) {
    // The scanner proved every LF is preceded by CR and the section ends in CRLF.
    std::size_t lf = lines.find('\n');
    std::string_view line = lines.substr(0, lf - 1);
    lines.remove_prefix(lf + 1);
    if (++count > max_fields) return {431, "too many header fields"};
    if (HttpError e = parse_field_line(line, out); e.status != 0) return e;
  }
  return {};
}

}  // namespace duet::http::detail
