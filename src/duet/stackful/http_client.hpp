// duet::fiber::HttpClient — an HTTP/1.1 client for the stackful voice:
// request(), get(), post() as plain blocking calls on a fiber, giving
// IoResult<http::ClientResponse>.
//
// Contract
// - The same API and semantics as the stackless duet::HttpClient
//   (task/http_client.hpp): one implementation of the protocol in
//   http/detail/client_core.hpp; this class only connects, sends, receives.
// - Keep-alive: a pool of idle connections per host:port (http::ClientOptions);
//   a pooled connection found closed is retried once on a fresh one, for
//   idempotent methods only.
// - options.timeout bounds the whole request (each call gets what is left of
//   it: std::errc::timed_out); options.stop cancels it (operation_canceled).
//   Host names go through fiber::resolve, then each address is tried with
//   what is left; the lookup itself is not bounded (getaddrinfo cannot be
//   interrupted; a stop ends the wait only before it starts).
//   https:// goes through fiber::TlsStream with the checks of the stackless
//   client (ClientOptions::tls's CAs or the system's; the URL's host).
// - Blocks the calling fiber only. The scheduler's thread; calls made on a
//   fiber (std::logic_error otherwise, from the streams). Several fibers may
//   use one client at once (each request takes its own connection).
//
//   duet::fiber::HttpClient client;
//   auto r = client.get("http://127.0.0.1:8080/hello");
//   if (r && r->status == 200) use(r->body);
//   auto p = client.post("http://127.0.0.1:8080/echo", "data", "text/plain");
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "duet/http/client_options.hpp"
#include "duet/http/client_response.hpp"
#include "duet/http/detail/client_connection.hpp"
#include "duet/http/detail/client_core.hpp"
#include "duet/http/detail/idle_pool.hpp"
#include "duet/io/io_result.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/tls_stream.hpp"

namespace duet::fiber {

class HttpClient {
 public:
  explicit HttpClient(http::ClientOptions options = {});
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  IoResult<http::ClientResponse> request(std::string method, std::string url,
                                         std::vector<http::OwnedField> headers = {}, std::string body = {},
                                         http::RequestOptions options = {});
  IoResult<http::ClientResponse> get(std::string url, http::RequestOptions options = {});
  IoResult<http::ClientResponse> post(std::string url, std::string body, std::string content_type,
                                      http::RequestOptions options = {});

  // Idle connections now in the pool.
  [[nodiscard]] std::size_t idle_connections() const noexcept { return pool_.size(); }

 private:
  using Connection = http::detail::ClientConnection<TcpStream, TlsStream>;

  const TlsContext& tls_context();

  http::ClientOptions options_;
  http::detail::IdlePool<Connection> pool_;
  std::unique_ptr<TlsContext> own_tls_;  // made on the first https:// request without options_.tls
};

}  // namespace duet::fiber
