// duet::http::RequestHead — a parsed request line and header section, as views
// into the bytes it was parsed from.
//
// Contract
// - Made by RequestParser (request_parser.hpp) once a whole head has arrived;
//   every string_view (method, target, path, query, host, each HeaderField)
//   points into the caller's input buffer, and `headers` into the parser's
//   reusable field array. So a head is valid until the caller moves or
//   overwrites the bytes of that head, or the parser parses the next head,
//   whichever comes first. A driver that must move those bytes (to compact
//   its buffer while a body streams in) calls RequestParser::relocate().
// - The framing fields are already judged: body/content_length say how the
//   body is delimited (a request with neither Content-Length nor chunked has
//   none), keep_alive is RFC 9112 §9.3's answer for this request,
//   expect_continue says a client waits for "100 Continue" before sending
//   its body (HTTP/1.1 only), upgrade that Connection lists "upgrade" and an
//   Upgrade field is present (the server decides; the parser never switches).
// - headers keeps every field in arrival order, names as sent; find() is a
//   case-insensitive lookup of the first one. A plain value: any thread that
//   owns it.
//
//   if (parser.parse(buf) == ParseEvent::head) {
//     const RequestHead& h = parser.head();
//     if (h.method == "GET" && h.path == "/") ...
//     std::string_view agent = h.find("user-agent");
//   }
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace duet::http {

struct HeaderField {
  std::string_view name;
  std::string_view value;  // optional whitespace around it removed
};

enum class HttpVersion : std::uint8_t { http_1_0, http_1_1 };

// RFC 9112 §3.2: origin-form "/p?q", absolute-form "http://h/p" (to proxies,
// but every server must accept it), asterisk-form "*" (OPTIONS only).
// authority-form (CONNECT) is refused with 501: duet's server is no proxy.
enum class TargetForm : std::uint8_t { origin, absolute, asterisk };

enum class BodyKind : std::uint8_t { none, content_length, chunked };

struct RequestHead {
  std::string_view method;
  std::string_view target;  // as sent
  std::string_view path;    // target's path ("/" for an absolute-form without one, "*" for asterisk-form)
  std::string_view query;   // after '?', without it; empty if none
  std::string_view host;    // the Host field (may be empty for HTTP/1.0)
  HttpVersion version = HttpVersion::http_1_1;
  TargetForm target_form = TargetForm::origin;
  BodyKind body = BodyKind::none;
  std::uint64_t content_length = 0;  // when body == content_length
  bool keep_alive = true;
  bool expect_continue = false;
  bool upgrade = false;
  std::span<const HeaderField> headers;

  // The first field named `name` (ASCII case-insensitive), or an empty view
  // (a present field with an empty value also gives one: see has()).
  [[nodiscard]] std::string_view find(std::string_view name) const noexcept;
  [[nodiscard]] bool has(std::string_view name) const noexcept;
};

}  // namespace duet::http
