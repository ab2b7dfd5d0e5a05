// duet::http::parse_url (http/url.hpp): what the clients accept as a URL,
// table-driven: host forms, default and explicit ports, targets, refusals.
#include <catch2/catch.hpp>
#include <string>

#include "duet/http/url.hpp"

namespace {

// "scheme|host|port|target|authority", or "refused".
std::string describe(std::string_view text) {
  auto u = duet::http::parse_url(text);
  if (!u) return "refused";
  return u->scheme + "|" + u->host + "|" + std::to_string(u->port) + "|" + u->target + "|" + u->authority();
}

}  // namespace

TEST_CASE("parse_url splits http and https URLs into host, port, target and Host value", "[http][url]") {
  struct Row {
    const char* in;
    const char* out;
  };
  const Row rows[] = {
      {"http://example.com", "http|example.com|80|/|example.com"},
      {"http://example.com/", "http|example.com|80|/|example.com"},
      {"HTTP://Example.com:8080/a/b?c=d", "http|Example.com|8080|/a/b?c=d|Example.com:8080"},
      {"https://h/x", "https|h|443|/x|h"},
      {"https://h:443/x", "https|h|443|/x|h"},
      {"http://h:443/x", "http|h|443|/x|h:443"},
      {"http://127.0.0.1:9/p", "http|127.0.0.1|9|/p|127.0.0.1:9"},
      {"http://[::1]:8080/x", "http|::1|8080|/x|[::1]:8080"},
      {"http://[::1]/", "http|::1|80|/|[::1]"},
      {"http://h?q=1", "http|h|80|/?q=1|h"},
      {"http://h/p#frag", "http|h|80|/p|h"},
  };
  for (const Row& r : rows) {
    INFO(r.in);
    CHECK(describe(r.in) == r.out);
  }
  const char* refused[] = {"ftp://h/",        "h/p",          "http:///p",  "http://:80/",    "http://h:0/",
                           "http://h:65536/", "http://h:x/",  "http://h:/", "http://u@h/",    "http://h /",
                           "http://h/a b",    "http://[::1/", "http://[]/", "http://[::1]x/", "http://h/\r\nX: y"};
  for (const char* r : refused) {
    INFO(r);
    CHECK(describe(r) == "refused");
  }
}
