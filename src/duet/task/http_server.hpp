// duet::HttpServer — an HTTP/1.1 server in the stackless voice: handlers are
// coroutines, Task<http::Response>(http::Request&).
//
// Contract
// - Routes first (route/get/post/put/del, before any serve call; see
//   http/route_table.hpp for patterns, 404/405 and HEAD), then serve() on a
//   listener, or serve_connection() per connection from an accept loop of your
//   own or serve_shard (one HttpServer may serve several shards at once: it is
//   only read then, so its handlers must be safe on every shard's thread).
//   The server must outlive everything it serves.
// - Everything HTTP is the sans-I/O core's (http/detail/server_connection.hpp),
//   shared with fiber::HttpServer: parsing and its defences (400, 413, 414,
//   431, 501, 505 with Connection: close), keep-alive and pipelining,
//   100-continue, bodies read whole or streamed, the head/body/idle/send
//   timeouts of HttpServerOptions, no buffer held between requests.
// - serve(listener, stop) returns once stop is requested and every connection
//   has ended: it stops accepting, connections waiting between requests close
//   at once, and a request in progress is answered (with Connection: close).
//   A handler that throws gets a 500 and the connection closes.
// - TLS: serve(listener, tls, stop) handshakes first (within head_timeout);
//   give the context .alpn = {"http/1.1"} (a client that negotiated another
//   protocol is closed) and .verify = TlsVerify::none unless clients must
//   present certificates (a server context's default, as Redis's).
// - A handler streams a request body with HttpBodyReader and a response with
//   HttpResponseStream (then returns http::Response::streamed()).
// - WebSocket routes: websocket(pattern, handler, ws_options) takes a GET
//   route's connection over. The server answers the upgrade through
//   ws_accept (101, or 400/426 naming the defect, then closes), and the
//   handler, Task<void>(http::Request&, WebSocket<Stream>), owns the
//   connection until it returns; earlier pipelined requests are answered
//   first, bytes that came after the head go to the WebSocket. Stream is
//   TcpStream or TlsStream: a generic handler (`auto ws`) serves both; one
//   that takes only one of them answers the other's requests 404. The
//   request (its head, params, stop_token) stays valid while the handler
//   runs; serve() waits for it, so it must end when stop_token() is stopped
//   (close(1001) is the polite way). A handler that throws ends its
//   connection only.
// - The loop's thread only (each shard's, when sharded).
//
//   duet::HttpServer server;
//   server.get("/", [](duet::http::Request&) -> duet::Task<duet::http::Response> {
//     co_return duet::http::Response::text(200, "hello");
//   });
//   co_await server.serve(listener, stop);
//   server.websocket("/echo", [](duet::http::Request&, auto ws) -> duet::Task<void> {
//     for (auto m = co_await ws.receive(); m; m = co_await ws.receive()) co_await ws.send_text(m->data());
//   });
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/http/request.hpp"
#include "duet/http/response.hpp"
#include "duet/http/route_table.hpp"
#include "duet/http/server_options.hpp"
#include "duet/http/websocket_options.hpp"
#include "duet/io/io_result.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/tls_stream.hpp"
#include "duet/task/websocket.hpp"

namespace duet {

namespace http::detail {
class ServerConnection;
}

using HttpHandler = std::function<Task<http::Response>(http::Request&)>;
template <typename Stream>
using WsHandler = std::function<Task<void>(http::Request&, WebSocket<Stream>)>;

class HttpServer {
 public:
  explicit HttpServer(http::HttpServerOptions options = {});
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  HttpServer& route(std::string_view method, std::string_view pattern, HttpHandler handler,
                    http::BodyMode mode = http::BodyMode::whole);
  HttpServer& get(std::string_view pattern, HttpHandler h) { return route("GET", pattern, std::move(h)); }
  HttpServer& post(std::string_view pattern, HttpHandler h) { return route("POST", pattern, std::move(h)); }
  HttpServer& put(std::string_view pattern, HttpHandler h) { return route("PUT", pattern, std::move(h)); }
  HttpServer& del(std::string_view pattern, HttpHandler h) { return route("DELETE", pattern, std::move(h)); }

  template <typename Handler>
  HttpServer& websocket(std::string_view pattern, Handler handler, WsOptions options = {}) {
    constexpr bool tcp = std::is_invocable_r_v<Task<void>, Handler&, http::Request&, WebSocket<TcpStream>>;
    constexpr bool tls = std::is_invocable_r_v<Task<void>, Handler&, http::Request&, WebSocket<TlsStream>>;
    static_assert(tcp || tls,
                  "duet::HttpServer::websocket: the handler is called as Task<void>(http::Request&, "
                  "WebSocket<TcpStream>) or (http::Request&, WebSocket<TlsStream>); a generic lambda "
                  "taking `auto ws` serves both");
    auto route = std::make_unique<WsRoute>();
    route->options = std::move(options);
    if constexpr (tcp) route->tcp = handler;
    if constexpr (tls) route->tls = std::move(handler);
    return add_websocket(pattern, std::move(route));
  }

  [[nodiscard]] Task<void> serve(TcpListener& listener, std::stop_token stop);
  [[nodiscard]] Task<void> serve(TcpListener& listener, const TlsContext& tls, std::stop_token stop);
  [[nodiscard]] Task<void> serve_connection(TcpStream conn, std::stop_token stop = {});
  [[nodiscard]] Task<void> serve_connection(TlsStream conn, std::stop_token stop = {});

  [[nodiscard]] const http::HttpServerOptions& options() const noexcept { return options_; }

 private:
  struct WsRoute {
    WsOptions options;
    WsHandler<TcpStream> tcp;  // empty: this route does not serve that transport
    WsHandler<TlsStream> tls;
  };

  HttpServer& add_websocket(std::string_view pattern, std::unique_ptr<WsRoute> route);
  template <typename Stream>
  Task<void> run(Stream& stream, std::stop_token stop);
  template <typename Stream>
  Task<bool> take_over(Stream& stream, http::detail::ServerConnection& core);
  Task<void> handle(http::detail::ServerConnection& core);
  Task<void> serve_tls(TcpStream conn, const TlsContext& tls, std::stop_token stop);
  Task<void> accept_all(TcpListener& listener, const TlsContext* tls, std::stop_token stop);

  http::HttpServerOptions options_;
  http::RouteTable routes_;
  std::vector<HttpHandler> handlers_;             // by route index (empty for a WebSocket route)
  std::vector<std::unique_ptr<WsRoute>> ws_routes_;  // by route index (null for an HTTP route)
};

// A streamed request body (a route added with http::BodyMode::stream), read
// by its handler while it handles the request.
//   duet::HttpBodyReader body(req);
//   for (;;) { auto piece = co_await body.read(); if (!piece || piece->empty()) break; sink(*piece); }
class HttpBodyReader {
 public:
  explicit HttpBodyReader(http::Request& request);
  // The next piece of the de-chunked body, a view valid until the next read;
  // empty at its end. Errors: timed_out (body_timeout), bad_message (a
  // malformed chunk, or past max_body), eof (the client left).
  [[nodiscard]] Task<IoResult<std::string_view>> read();

 private:
  http::Request* request_;
};

// A response sent in pieces (chunked; close-delimited to an HTTP/1.0 client).
//   duet::HttpResponseStream out(req);
//   duet::HttpResponseStream::Headers headers{{"Content-Type", "text/plain"}};  // named: see start()
//   co_await out.start(200, std::move(headers));
//   co_await out.write("tick\n");
//   co_await out.finish();
//   co_return duet::http::Response::streamed();
class HttpResponseStream {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  explicit HttpResponseStream(http::Request& request);
  // Each call sends what it adds (within send_timeout); an error means the client is gone.
  [[nodiscard]] Task<IoResult<void>> start(int status, Headers headers);
  // (Not a default argument: GCC 12 destroys a braced temporary inside co_await twice.)
  [[nodiscard]] Task<IoResult<void>> start(int status) { return start(status, Headers()); }
  [[nodiscard]] Task<IoResult<void>> write(std::string_view data);
  [[nodiscard]] Task<IoResult<void>> finish();

 private:
  http::Request* request_;
};

}  // namespace duet
