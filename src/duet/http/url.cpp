#include "duet/http/url.hpp"

#include <charconv>

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

std::string Url::authority() const {
  std::string a = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (port != (tls() ? 443 : 80)) a.append(":").append(std::to_string(port));
  return a;
}

namespace {

bool parse_port(std::string_view s, std::uint16_t& port) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v == 0 || v > 65535) return false;
  port = static_cast<std::uint16_t>(v);
  return true;
}

// host [":" port], host a reg-name, IPv4 or "[" IPv6 "]".
bool split_authority(std::string_view a, Url& url) {
  std::string_view port;
  if (!a.empty() && a.front() == '[') {
    std::size_t close = a.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    url.host = a.substr(1, close - 1);
    std::string_view rest = a.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    if (!rest.empty()) port = rest.substr(1);
    if (!rest.empty() && port.empty()) return false;
  } else {
    std::size_t colon = a.find(':');
    url.host = a.substr(0, colon);
    if (colon != std::string_view::npos && (port = a.substr(colon + 1)).empty()) return false;
  }
  if (url.host.empty()) return false;
  for (char c : url.host)
    if (!(detail::is_tchar(c) || c == ':' || c == '%')) return false;  // no '@', '/', space, control
  return port.empty() || parse_port(port, url.port);
}

}  // namespace

std::optional<Url> parse_url(std::string_view text) {
  for (char c : text)
    if (c <= 0x20 || c >= 0x7f) return std::nullopt;
  std::size_t sep = text.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  Url url;
  for (char c : text.substr(0, sep)) url.scheme += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (url.scheme != "http" && url.scheme != "https") return std::nullopt;
  url.port = url.tls() ? 443 : 80;
  std::string_view rest = text.substr(sep + 3);
  rest = rest.substr(0, rest.find('#'));
  std::size_t path = rest.find_first_of("/?");
  if (!split_authority(rest.substr(0, path), url)) return std::nullopt;
  if (path != std::string_view::npos) url.target = rest.substr(path);
  if (url.target.front() == '?') url.target.insert(0, "/");
  return url;
}

}  // namespace duet::http
