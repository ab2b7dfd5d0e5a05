// duet::HttpClient — an HTTP/1.1 client for the stackless voice: request(),
// get(), post() as Tasks giving IoResult<http::ClientResponse>.
//
// Contract
// - The protocol is written once in http/detail/client_core.hpp (request
//   serialising, response framing, reuse and retry rules) and shared with
//   duet::fiber::HttpClient; this class only connects, sends, receives.
// - Owns a small pool of idle keep-alive connections per host:port
//   (http::ClientOptions bounds it); a pooled connection found closed when
//   reused is retried once on a fresh one, for idempotent methods only.
// - request(method, url, headers, body, options): url "http://host[:port]/..."
//   (host names resolved by TcpStream::connect(loop, host, port)); body sent
//   with Content-Length. options.timeout bounds the whole request
//   (std::errc::timed_out), options.stop cancels it (operation_canceled).
//   https:// goes through TlsStream: the server's certificate is checked
//   against ClientOptions::tls's CAs (by default the system's) and must name
//   the URL's host. Errors: see client_core.hpp (invalid_argument,
//   bad_message, message_size, eof, ...) and tls_errc for TLS failures.
// - Every argument is taken by value: the Task is lazy and may be awaited
//   (or put under when_all) after the caller's strings are gone.
// - The loop's thread only; the client must outlive its requests' Tasks.
//   Several requests may run at once (each takes its own connection).
//
//   duet::HttpClient client(loop);
//   auto r = co_await client.get("http://127.0.0.1:8080/hello");
//   if (r && r->status == 200) use(r->body);
//   auto p = co_await client.post("http://127.0.0.1:8080/echo", "data", "text/plain");
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
#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/tls_stream.hpp"

namespace duet {

class HttpClient {
 public:
  explicit HttpClient(EventLoop& loop, http::ClientOptions options = {});
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  [[nodiscard]] Task<IoResult<http::ClientResponse>> request(std::string method, std::string url,
                                                             std::vector<http::OwnedField> headers = {},
                                                             std::string body = {}, http::RequestOptions options = {});
  [[nodiscard]] Task<IoResult<http::ClientResponse>> get(std::string url, http::RequestOptions options = {});
  [[nodiscard]] Task<IoResult<http::ClientResponse>> post(std::string url, std::string body, std::string content_type,
                                                          http::RequestOptions options = {});

  // Idle connections now in the pool.
  [[nodiscard]] std::size_t idle_connections() const noexcept { return pool_.size(); }

 private:
  using Connection = http::detail::ClientConnection<TcpStream, TlsStream>;

  Task<IoResult<http::ClientResponse>> run(http::detail::RequestPlan plan, std::stop_token token);
  Task<IoResult<Connection>> open(const http::detail::RequestPlan& plan, std::stop_token token);
  const TlsContext& tls_context();

  EventLoop& loop_;
  http::ClientOptions options_;
  http::detail::IdlePool<Connection> pool_;
  std::unique_ptr<TlsContext> own_tls_;  // made on the first https:// request without options_.tls
};

}  // namespace duet
