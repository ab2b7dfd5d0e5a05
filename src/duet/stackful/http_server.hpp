// duet::fiber::HttpServer — an HTTP/1.1 server in the stackful voice: each
// connection on a fiber of its own, handlers plain functions
// http::Response(http::Request&) that may block (fiber calls, hiredis under
// the hooks).
//
// Contract
// - The same as duet::HttpServer (task/http_server.hpp), with the same
//   Request, Response, routes and options, and the same sans-I/O core
//   (http/detail/server_connection.hpp): only the waiting differs. Routes
//   first, then serve(listener, stop) on a fiber, or serve_connection() per
//   connection (serve_shard: one server for many shards; handlers must then be
//   safe on every shard's thread). The server must outlive what it serves.
// - serve() returns once stop is requested and every connection's fiber has
//   ended (connections between requests close at once, a request in
//   progress is answered with Connection: close). A handler that throws: 500,
//   then the connection closes. TLS: serve(listener, tls, stop), with
//   .alpn = {"http/1.1"} in the context (and .verify = TlsVerify::none
//   unless clients must present certificates).
// - A handler streams a request body with fiber::HttpBodyReader and a
//   response with fiber::HttpResponseStream (then returns
//   http::Response::streamed()).
// - WebSocket routes: websocket(pattern, handler, ws_options), as
//   duet::HttpServer's; the handler is void(http::Request&,
//   fiber::WebSocket<Stream>) and runs on the connection's fiber; one that
//   throws ends its connection only.
// - The scheduler's thread; serve and serve_connection on a fiber.
//
//   duet::fiber::HttpServer server;
//   server.get("/", [](duet::http::Request&) { return duet::http::Response::text(200, "hello"); });
//   server.serve(listener, stop);   // on a fiber
//   server.websocket("/echo", [](duet::http::Request&, auto ws) {
//     while (auto m = ws.receive()) (void)ws.send_text(m->data());
//   });
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
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
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/tls_stream.hpp"
#include "duet/stackful/websocket.hpp"

namespace duet::http::detail {
class ServerConnection;
}

namespace duet::fiber {

using HttpHandler = std::function<http::Response(http::Request&)>;
template <typename Stream>
using WsHandler = std::function<void(http::Request&, WebSocket<Stream>)>;

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
    constexpr bool tcp = std::is_invocable_v<Handler&, http::Request&, WebSocket<TcpStream>>;
    constexpr bool tls = std::is_invocable_v<Handler&, http::Request&, WebSocket<TlsStream>>;
    static_assert(tcp || tls,
                  "duet::fiber::HttpServer::websocket: the handler is called as void(http::Request&, "
                  "fiber::WebSocket<TcpStream>) or (http::Request&, fiber::WebSocket<TlsStream>); a generic "
                  "lambda taking `auto ws` serves both");
    auto route = std::make_unique<WsRoute>();
    route->options = std::move(options);
    if constexpr (tcp) route->tcp = handler;
    if constexpr (tls) route->tls = std::move(handler);
    return add_websocket(pattern, std::move(route));
  }

  void serve(TcpListener& listener, std::stop_token stop);
  void serve(TcpListener& listener, const TlsContext& tls, std::stop_token stop);
  void serve_connection(TcpStream conn, std::stop_token stop = {});
  void serve_connection(TlsStream conn, std::stop_token stop = {});

  [[nodiscard]] const http::HttpServerOptions& options() const noexcept { return options_; }

 private:
  struct WsRoute {
    WsOptions options;
    WsHandler<TcpStream> tcp;  // empty: this route does not serve that transport
    WsHandler<TlsStream> tls;
  };

  HttpServer& add_websocket(std::string_view pattern, std::unique_ptr<WsRoute> route);
  template <typename Stream>
  void run(Stream& stream, const std::stop_token& stop);
  template <typename Stream>
  bool take_over(Stream& stream, http::detail::ServerConnection& core);
  void serve_tls(TcpStream conn, const TlsContext& tls, const std::stop_token& stop);
  void accept_all(TcpListener& listener, const TlsContext* tls, const std::stop_token& stop);

  http::HttpServerOptions options_;
  http::RouteTable routes_;
  std::vector<HttpHandler> handlers_;             // by route index (empty for a WebSocket route)
  std::vector<std::unique_ptr<WsRoute>> ws_routes_;  // by route index (null for an HTTP route)
};

// A streamed request body (a route added with http::BodyMode::stream).
//   duet::fiber::HttpBodyReader body(req);
//   while (auto piece = body.read()) { if (piece->empty()) break; sink(*piece); }
class HttpBodyReader {
 public:
  explicit HttpBodyReader(http::Request& request);
  // As duet::HttpBodyReader::read: a view valid until the next read, empty at the end.
  [[nodiscard]] IoResult<std::string_view> read();

 private:
  http::Request* request_;
};

// A response sent in pieces, as duet::HttpResponseStream.
class HttpResponseStream {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  explicit HttpResponseStream(http::Request& request);
  IoResult<void> start(int status, const Headers& headers = {});
  IoResult<void> write(std::string_view data);
  IoResult<void> finish();

 private:
  http::Request* request_;
};

}  // namespace duet::fiber
