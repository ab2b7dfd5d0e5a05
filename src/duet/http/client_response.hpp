// duet::http::ClientResponse — a complete HTTP response as the clients
// return it (duet::HttpClient, duet::fiber::HttpClient): owned strings, no
// views. (duet::http::Response, response.hpp, is what a server handler answers.)
//
// Contract
// - status, reason and version from the status line; headers and trailers
//   (a chunked body's) in arrival order, names as sent; body de-chunked.
//   find() is an ASCII case-insensitive lookup of the first header so named.
// - OwnedField, a (name, value) pair as in the server's Response::headers, is
//   also how a caller hands request headers to a client.
// - A plain value: movable, copyable, any thread that owns it.
//
//   duet::http::ClientResponse r = *co_await client.get("http://127.0.0.1:8080/");
//   if (r.status == 200) use(r.body, r.find("content-type"));
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "duet/http/request_head.hpp"

namespace duet::http {

using OwnedField = std::pair<std::string, std::string>;

struct ClientResponse {
  int status = 0;
  std::string reason;
  HttpVersion version = HttpVersion::http_1_1;
  std::vector<OwnedField> headers;
  std::vector<OwnedField> trailers;
  std::string body;

  [[nodiscard]] std::string_view find(std::string_view name) const noexcept;
};

}  // namespace duet::http
