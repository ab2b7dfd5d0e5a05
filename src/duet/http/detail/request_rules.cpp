#include "duet/http/detail/request_rules.hpp"

#include "duet/http/detail/http_chars.hpp"
#include "duet/http/detail/message_framing.hpp"

namespace duet::http::detail {

namespace {

bool is_target_char(char c) noexcept { return c > 0x20 && c < 0x7f; }

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), RFC 3986 §3.1.
bool is_scheme(std::string_view s) noexcept {
  if (s.empty() || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
          c == '.'))
      return false;
  return true;
}

// reg-name, IP-literal or IPv4 with an optional port: unreserved, sub-delims,
// pct-encoded, ':', '[', ']'. Refuses what would change a URL built from it
// ('/', '?', '#', '@', whitespace).
bool is_host_value(std::string_view s) noexcept {
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("-._~!$&'()*+,;=:[]%").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

HttpError split_target(RequestHead& head) {
  std::string_view t = head.target;
  if (t == "*") {
    if (head.method != "OPTIONS") return {400, "asterisk-form target on a method other than OPTIONS"};
    head.target_form = TargetForm::asterisk;
    head.path = t;
    return {};
  }
  if (t.front() != '/') {
    std::size_t colon = t.find(':');
    if (colon == std::string_view::npos || !is_scheme(t.substr(0, colon)) || t.substr(colon + 1, 2) != "//")
      return {400, "invalid request target"};
    std::size_t authority = colon + 3;
    std::size_t path = t.find_first_of("/?", authority);
    if (path == authority) return {400, "absolute-form target without an authority"};
    head.target_form = TargetForm::absolute;
    t = path == std::string_view::npos ? std::string_view{} : t.substr(path);
  }
  std::size_t q = t.find('?');
  head.path = t.substr(0, q);
  if (head.path.empty()) head.path = "/";
  head.query = q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
  return {};
}

}  // namespace

bool parse_decimal(std::string_view s, std::uint64_t& out) noexcept {
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

HttpError parse_request_line(std::string_view line, RequestHead& head) {
  std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return {400, "malformed request line"};
  head.method = line.substr(0, sp1);
  if (!is_token(head.method)) return {400, "invalid method"};
  std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return {400, "malformed request line"};
  head.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  for (char c : head.target)
    if (!is_target_char(c)) return {400, "invalid character in request target"};
  std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.1") {
    head.version = HttpVersion::http_1_1;
  } else if (version == "HTTP/1.0") {
    head.version = HttpVersion::http_1_0;
  } else {
    bool shaped = version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[5] >= '0' && version[5] <= '9' &&
                  version[6] == '.' && version[7] >= '0' && version[7] <= '9';
    return shaped ? HttpError{505, "unsupported HTTP version"} : HttpError{400, "malformed request line"};
  }
  if (head.method == "CONNECT") return {501, "CONNECT is not supported"};
  return split_target(head);
}

HttpError judge_fields(RequestHead& head, std::uint64_t max_body) {
  MessageFraming f = gather_framing(head.headers);
  head.host = f.host;
  if (f.te_seen) {
    if (HttpError e = judge_transfer_encoding(f, head.version); e.status != 0) return e;
    head.body = BodyKind::chunked;
  } else if (f.content_lengths != 0) {
    if (HttpError e = judge_content_length(f, max_body); e.status != 0) return e;
    head.body = f.content_length == 0 ? BodyKind::none : BodyKind::content_length;
    head.content_length = f.content_length;
  }
  // RFC 9112 §3.2: 400 to an HTTP/1.1 request without Host or with more than one.
  if (f.hosts > 1) return {400, "more than one Host"};
  if (f.hosts == 0 && head.version == HttpVersion::http_1_1) return {400, "missing Host"};
  if (!is_host_value(head.host)) return {400, "invalid Host"};
  // RFC 9110 §10.1.1: an HTTP/1.0 client cannot wait for 100, ignore it there.
  if (f.expect_other) return {417, "unsupported expectation"};
  head.expect_continue = f.expect_continue && head.version == HttpVersion::http_1_1;
  head.upgrade = f.conn_upgrade && f.upgrade_field;
  head.keep_alive = keeps_alive(f, head.version);
  return {};
}

}  // namespace duet::http::detail

namespace duet::http::detail {

namespace {

std::size_t skip_ows(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_ows(s[i])) ++i;
  return i;
}

// quoted-string from s[i] == '"'; returns the index after the closing quote, or npos.
std::size_t skip_quoted(std::string_view s, std::size_t i) noexcept {
  for (++i; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"') return i + 1;
    if (c == '\\') {
      if (++i == s.size() || !is_field_char(s[i])) return std::string_view::npos;
    } else if (!is_field_char(s[i])) {
      return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

std::size_t skip_token(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_tchar(s[i])) ++i;
  return i;
}

bool valid_extensions(std::string_view ext) noexcept {
  std::size_t i = 0;
  while (i < ext.size()) {
    i = skip_ows(ext, i);
    if (i == ext.size() || ext[i] != ';') return false;
    i = skip_ows(ext, i + 1);
    std::size_t name_end = skip_token(ext, i);
    if (name_end == i) return false;
    i = skip_ows(ext, name_end);
    if (i < ext.size() && ext[i] == '=') {
      i = skip_ows(ext, i + 1);
      std::size_t value_end = i < ext.size() && ext[i] == '"' ? skip_quoted(ext, i) : skip_token(ext, i);
      if (value_end == std::string_view::npos || value_end == i) return false;
      i = value_end;
    } else if (i < ext.size() && ext[i] != ';' && !is_ows(ext[i])) {
      return false;
    } else if (i == ext.size() && is_ows(ext.back())) {
      return false;  // whitespace before CRLF
    }
  }
  return true;
}

}  // namespace

HttpError parse_chunk_line(std::string_view line, std::size_t max_extension, std::uint64_t& size) {
  std::size_t i = 0;
  std::uint64_t v = 0;
  for (int d; i < line.size() && (d = hex_value(line[i])) >= 0; ++i) {
    if (v > (UINT64_MAX >> 4)) return {400, "chunk size overflows"};
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  if (i == 0) return {400, "invalid chunk size"};
  std::string_view ext = line.substr(i);
  if (ext.size() > max_extension) return {400, "chunk extension too long"};
  if (!valid_extensions(ext)) return {400, "invalid chunk extension"};
  size = v;
  return {};
}

}  // namespace duet::http::detail
