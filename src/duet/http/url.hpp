// duet::http::Url — an http:// or https:// URL split into what a client
// needs: scheme, host, port, the request target and the Host field's value.
//
// Contract
// - parse_url(text) accepts "scheme://host[:port][/path][?query]" with
//   scheme http or https (case-insensitive), a host name, an IPv4 address or
//   a bracketed IPv6 literal; the port defaults to 80 / 443; a missing path
//   becomes "/"; a fragment ("#...") is dropped (never sent). Userinfo
//   ("user@"), an empty host, a port outside 1-65535, and spaces or control
//   characters anywhere give std::nullopt.
// - host is without brackets (what the resolver takes); authority() is the
//   Host field's value (brackets kept, the port only when not the default).
// - A plain value: any thread.
//
//   auto url = duet::http::parse_url("http://[::1]:8080/x?y=1");
//   // url->host == "::1", url->port == 8080, url->target == "/x?y=1", url->authority() == "[::1]:8080"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace duet::http {

struct Url {
  std::string scheme;  // "http" or "https", lower case
  std::string host;
  std::uint16_t port = 80;
  std::string target = "/";

  [[nodiscard]] bool tls() const noexcept { return scheme == "https"; }
  [[nodiscard]] std::string authority() const;
};

[[nodiscard]] std::optional<Url> parse_url(std::string_view text);

}  // namespace duet::http
