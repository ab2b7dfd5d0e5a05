// duet::http::HttpServerOptions — the limits and timeouts of both voices'
// HTTP servers (task/http_server.hpp, stackful/http_server.hpp).
//
// Contract
// - A plain value, read by the server's connections (on any shard) and never
//   written after the server starts. Every timeout bounds what a client can
//   hold: a slowloris that trickles its head meets head_timeout (408, close),
//   a slow body body_timeout (408, close), a kept-alive connection that sends
//   nothing idle_timeout (closed silently), a client that never reads its
//   responses send_timeout (closed). A zero timeout is refused (the server
//   constructor throws std::invalid_argument): a server on the internet needs
//   every one.
//
//   duet::http::HttpServerOptions options;
//   options.limits.max_body = 1 << 20;
//   options.idle_timeout = std::chrono::seconds(5);
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>

#include "duet/http/request_parser.hpp"

namespace duet::http {

struct HttpServerOptions {
  RequestLimits limits;
  std::chrono::milliseconds head_timeout{10'000};  // from a request's first byte to its whole head
  std::chrono::milliseconds body_timeout{30'000};  // from the head to the body's last byte
  std::chrono::milliseconds idle_timeout{60'000};  // a kept-alive connection between requests
  std::chrono::milliseconds send_timeout{30'000};  // to send one response (or one streamed piece)
  // Responses to pipelined requests are gathered into one send up to this
  // many bytes; past it they go out before the next request is read.
  std::size_t output_limit = 64 * 1024;
  bool date = true;  // a Date field on every response (RFC 9110 §6.6.1)
};

// Both voices' servers check their options with it at construction.
inline void check_server_options(const HttpServerOptions& o) {
  using std::chrono::milliseconds;
  if (o.head_timeout <= milliseconds(0) || o.body_timeout <= milliseconds(0) || o.idle_timeout <= milliseconds(0) ||
      o.send_timeout <= milliseconds(0))
    throw std::invalid_argument("duet::http::HttpServerOptions: every timeout must be positive");
}

}  // namespace duet::http
