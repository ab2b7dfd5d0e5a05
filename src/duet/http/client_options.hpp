// duet::http::ClientOptions / RequestOptions — how the HTTP clients of both
// voices (task/http_client.hpp, stackful/http_client.hpp) pool connections,
// bound what they read, and bound one request in time.
//
// Contract
// - ClientOptions, per client: idle keep-alive connections kept per
//   host:port and in all (the oldest is closed past either bound; 0 turns
//   reuse off) and for how long (max_idle_time), the response limits (ResponseParser's), and for https:// a
//   client TlsContext (tls/tls_context.hpp: its CAs check the server's
//   certificate, and the URL's host is the name it must carry). Without one
//   the client makes its own on first use: the system's trusted CAs, peer
//   verification. The context must outlive the client.
// - RequestOptions, per request: timeout covers the whole request (resolve,
//   connect, send, the full response; 0 = none; std::errc::timed_out);
//   stop cancels it (std::errc::operation_canceled). Either way the
//   connection in use is closed, never pooled.
// - Plain values, any thread.
//
//   duet::http::RequestOptions opts;
//   opts.timeout = std::chrono::seconds(2);
//   opts.stop = stop_source.get_token();
//   auto r = co_await client.get("http://127.0.0.1:8080/", opts);
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>

#include "duet/http/parse_event.hpp"

namespace duet {
class TlsContext;
}  // namespace duet

namespace duet::http {

struct ClientOptions {
  std::size_t max_idle_per_host = 4;
  std::size_t max_idle_total = 32;
  std::chrono::milliseconds max_idle_time{30'000};  // a connection idle this long is closed, not reused
  ResponseLimits limits = {};
  const TlsContext* tls = nullptr;
};

struct RequestOptions {
  std::chrono::milliseconds timeout{30'000};
  std::stop_token stop = {};
};

}  // namespace duet::http
