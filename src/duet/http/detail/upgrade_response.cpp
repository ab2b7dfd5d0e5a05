// The response head: the request parser's section scanner and field rules
// (detail/field_section), and a status line read strictly (RFC 9112 §4).
#include "duet/http/detail/upgrade_response.hpp"

#include "duet/http/detail/field_section.hpp"
#include "duet/http/detail/header_tokens.hpp"

namespace duet::http {
namespace {

using Parse = UpgradeResponseParse;

Parse fail(std::string_view why) { return {Parse::Status::error, 0, why}; }

bool digit(char c) { return c >= '0' && c <= '9'; }

// "HTTP/1.1 101 Switching Protocols": version, SP, three digits, SP, a reason without controls.
bool parse_status_line(std::string_view line, UpgradeResponse& out) {
  if (line.size() < 13 || line.substr(0, 7) != "HTTP/1." || line[8] != ' ' || line[12] != ' ') return false;
  if (line[7] != '0' && line[7] != '1') return false;
  out.version = line[7] == '1' ? HttpVersion::http_1_1 : HttpVersion::http_1_0;
  if (!digit(line[9]) || !digit(line[10]) || !digit(line[11]) || line[9] == '0') return false;
  out.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  out.reason = line.substr(13);
  for (const char c : out.reason) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

}  // namespace

std::string_view UpgradeResponse::find(std::string_view name) const noexcept {
  for (const HeaderField& f : headers) {
    if (duet::detail::iequals(f.name, name)) return f.value;
  }
  return {};
}

UpgradeResponseParse parse_upgrade_response(std::string_view in, std::size_t max_bytes, std::vector<HeaderField>& fields,
                                      UpgradeResponse& out) {
  detail::SectionScanner scanner;  // a head is small: rescanning from the start costs little
  switch (scanner.run(in, 0, max_bytes)) {
    case detail::SectionScanner::Result::more: return {};
    case detail::SectionScanner::Result::found: break;
    case detail::SectionScanner::Result::bare_lf: return fail("a response line ends in a bare LF");
    case detail::SectionScanner::Result::first_line_too_long:
    case detail::SectionScanner::Result::too_large: return fail("the response head is too large");
  }
  const std::string_view section = in.substr(0, scanner.end());
  const std::size_t line_end = scanner.first_line_end();
  out = UpgradeResponse{};
  if (!parse_status_line(section.substr(0, line_end), out)) return fail("a malformed status line");
  fields.clear();
  const std::string_view lines = section.substr(line_end + 2, section.size() - line_end - 4);
  if (HttpError e = detail::parse_fields(lines, 100, fields); e.status != 0) return fail(e.detail);
  out.headers = fields;
  return {Parse::Status::head, section.size(), {}};
}

}  // namespace duet::http
