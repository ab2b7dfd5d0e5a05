// HttpServer (stackless): the connection loop over the sans-I/O core
// (http/detail/server_connection.hpp). Only how to receive, send and wait is
// here; fiber::HttpServer is the same loop with blocking calls.
#include "duet/task/http_server.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "duet/http/detail/server_connection.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/with_timeout.hpp"

namespace duet {

namespace {

using http::detail::BodyPiece;
using http::detail::ServerConnection;
using http::detail::ServerStep;

constexpr int task_voice = 1;  // ServerConnection::driver's tag for this voice

// The connection's I/O, reached by HttpBodyReader and HttpResponseStream through the core.
class ConnectionIo {
 public:
  virtual ~ConnectionIo() = default;
  // One receive within the core's wait budget, its bytes (or its failure) given to the core.
  virtual Task<IoResult<void>> receive(std::stop_token token) = 0;
  // The core's output, then core.sent().
  virtual Task<IoResult<void>> send() = 0;
};

template <typename Stream>
class StreamIo final : public ConnectionIo {
 public:
  StreamIo(Stream& stream, ServerConnection& core, const http::HttpServerOptions& options) noexcept
      : stream_(stream), core_(core), options_(options) {}

  Task<IoResult<void>> receive(std::stop_token token) override {
    const auto budget = core_.wait_budget();
    std::error_code failed = std::make_error_code(std::errc::timed_out);
    if (budget.count() > 0) {
      if constexpr (std::is_same_v<Stream, TlsStream>) {
        auto got = co_await stream_.recv(core_.recv_space(), budget, std::move(token));
        if (got) core_.commit(*got);
        failed = got ? std::error_code() : got.error();
      } else {
        // Pooled: a connection waiting between requests holds no buffer.
        auto got = co_await with_timeout(stream_.recv_pooled(std::move(token)), budget);
        if (got) core_.feed(got->bytes());
        failed = got ? std::error_code() : got.error();
      }
    }
    if (failed) {
      core_.receive_failed(failed);
      co_return failed;
    }
    co_return IoResult<void>{};
  }

  Task<IoResult<void>> send() override {
    const std::string_view out = core_.output();
    std::error_code failed;
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      auto r = co_await stream_.send_all(out, options_.send_timeout);
      if (!r) failed = r.error();
    } else {
      auto r = co_await with_timeout(stream_.send_all(out), options_.send_timeout);
      if (!r) failed = r.error();
    }
    if (failed) {
      core_.failed();  // a client that does not read (send_timeout), or is gone
      co_return failed;
    }
    core_.sent();
    co_return IoResult<void>{};
  }

 private:
  Stream& stream_;
  ServerConnection& core_;
  const http::HttpServerOptions& options_;
};

ConnectionIo& io_of(http::Request& request) {
  return *static_cast<ConnectionIo*>(request.connection().driver(task_voice));
}

}  // namespace

HttpServer::HttpServer(http::HttpServerOptions options) : options_(std::move(options)) {
  http::check_server_options(options_);
}

HttpServer& HttpServer::route(std::string_view method, std::string_view pattern, HttpHandler handler,
                              http::BodyMode mode) {
  if (!handler) throw std::invalid_argument("duet::HttpServer: an empty handler");
  if (mode == http::BodyMode::upgrade)
    throw std::invalid_argument("duet::HttpServer: an upgrade route is added by websocket()");
  routes_.add(method, pattern, mode);
  handlers_.push_back(std::move(handler));
  ws_routes_.emplace_back();
  return *this;
}

HttpServer& HttpServer::add_websocket(std::string_view pattern, std::unique_ptr<WsRoute> route) {
  routes_.add("GET", pattern, http::BodyMode::upgrade);
  handlers_.emplace_back();
  ws_routes_.push_back(std::move(route));
  return *this;
}

// The route's handler takes the connection over as a WebSocket; false when
// this route serves no such stream (the core answers 404 and goes on).
template <typename Stream>
Task<bool> HttpServer::take_over(Stream& stream, ServerConnection& core) {
  const WsRoute& route = *ws_routes_[core.route()];
  const WsHandler<Stream>* handler = nullptr;
  if constexpr (std::is_same_v<Stream, TlsStream>) handler = &route.tls;
  else handler = &route.tcp;
  if (!*handler) co_return false;
  http::Request& request = core.request();
  auto ws = co_await ws_accept(std::move(stream), request.head(), core.leftover(), route.options, request.stop_token());
  if (!ws) co_return true;  // refused (400, 426) or cut short: the connection is over
  try {
    Task<void> session = (*handler)(request, std::move(*ws));  // named: GCC 12 and temporaries in co_await
    co_await std::move(session);
  } catch (...) {  // the handler's failure ends its connection (the WebSocket closed it), not the server
  }
  co_return true;
}

template <typename Stream>
Task<void> HttpServer::run(Stream& stream, std::stop_token stop) {
  ServerConnection core(routes_, options_, stop);
  StreamIo<Stream> io(stream, core, options_);
  core.set_driver(static_cast<ConnectionIo*>(&io), task_voice);
  for (;;) {
    const ServerStep step = core.next();
    if (step == ServerStep::close) break;
    if (step == ServerStep::send) {
      auto sent = co_await io.send();  // a failure closes (ConnectionIo::send tells the core)
      (void)sent;
    } else if (step == ServerStep::upgrade) {
      const bool taken = co_await take_over(stream, core);
      if (taken) break;  // the stream was the WebSocket's: nothing more here
      core.respond(http::Response::text(404, "no WebSocket route for this transport\n"));
    } else if (step == ServerStep::receive) {
      const bool idle = core.idle_wait();
      // Only the wait between requests ends at a stop: a request in progress is finished.
      std::stop_token token = idle ? stop : std::stop_token();  // named: GCC 12 destroys a temporary in co_await twice
      auto got = co_await io.receive(std::move(token));  // a failure is told to the core
      (void)got;
    } else {
      co_await handle(core);
    }
  }
}

// The handler's call, in a frame of its own: the connection's frame, which
// an idle connection keeps, then holds no Response (memory per idle connection).
Task<void> HttpServer::handle(ServerConnection& core) {
  std::optional<http::Response> response;
  try {
    response.emplace(co_await handlers_[core.route()](core.request()));
  } catch (...) {  // the handler's failure is its client's 500, not the server's end
  }
  if (response) core.respond(*response);
  else core.handler_failed();
}

Task<void> HttpServer::serve_connection(TcpStream conn, std::stop_token stop) {
  co_await run(conn, std::move(stop));
}

Task<void> HttpServer::serve_connection(TlsStream conn, std::stop_token stop) {
  co_await run(conn, std::move(stop));
}

Task<void> HttpServer::serve_tls(TcpStream conn, const TlsContext& tls, std::stop_token stop) {
  TlsStream stream(std::move(conn), tls);
  auto shaken = co_await stream.handshake(options_.head_timeout, stop);
  if (!shaken) co_return;
  const std::string_view alpn = stream.engine().alpn();
  if (!alpn.empty() && alpn != "http/1.1") co_return;
  co_await run(stream, std::move(stop));
}

// Accepts until stop, each connection's task in one scope; returns when the
// last has ended. (No lambda carries the stop token into the scope: GCC 12
// copies a lambda's captures bitwise inside a co_await expression.)
Task<void> HttpServer::accept_all(TcpListener& listener, const TlsContext* tls, std::stop_token stop) {
  TaskScope scope;
  for (;;) {
    auto conn = co_await listener.accept(stop);
    if (conn) {
      if (tls != nullptr) scope.spawn(serve_tls(std::move(*conn), *tls, stop));
      else scope.spawn(serve_connection(std::move(*conn), stop));
      continue;
    }
    if (stop.stop_requested()) break;
    // EMFILE: wait for connections to end, do not spin; others (ECONNABORTED...) at once.
    const auto pause = default_accept_backoff(conn.error(), listener.native_handle());
    if (pause.count() > 0) (void)co_await sleep_for(listener.loop(), pause, stop);
  }
  co_await scope.join();
}

Task<void> HttpServer::serve(TcpListener& listener, std::stop_token stop) {
  co_await accept_all(listener, nullptr, std::move(stop));
}

Task<void> HttpServer::serve(TcpListener& listener, const TlsContext& tls, std::stop_token stop) {
  co_await accept_all(listener, &tls, std::move(stop));
}

HttpBodyReader::HttpBodyReader(http::Request& request) : request_(&request) {
  if (request.body_mode() != http::BodyMode::stream)
    throw std::logic_error("duet::HttpBodyReader: this route reads its body whole (http::BodyMode::whole)");
}

Task<IoResult<std::string_view>> HttpBodyReader::read() {
  ServerConnection& core = request_->connection();
  ConnectionIo& io = io_of(*request_);
  for (;;) {
    std::string_view piece;
    const BodyPiece found = core.next_body_piece(piece);
    if (found == BodyPiece::data) co_return piece;
    if (found == BodyPiece::end) co_return std::string_view();
    if (found == BodyPiece::failed) co_return std::make_error_code(std::errc::bad_message);
    if (!core.output().empty()) {  // "100 Continue" first: the client waits for it
      auto sent = co_await io.send();
      if (!sent) co_return sent.error();
    }
    std::stop_token none;  // named, not a braced temporary (GCC 12, see run())
    auto got = co_await io.receive(std::move(none));
    if (!got) co_return got.error();  // the core knows: the connection cannot go on
  }
}

HttpResponseStream::HttpResponseStream(http::Request& request) : request_(&request) {}

Task<IoResult<void>> HttpResponseStream::start(int status, Headers headers) {
  request_->connection().begin_stream(status, headers);
  co_return co_await io_of(*request_).send();
}

Task<IoResult<void>> HttpResponseStream::write(std::string_view data) {
  request_->connection().stream_piece(data);
  co_return co_await io_of(*request_).send();
}

Task<IoResult<void>> HttpResponseStream::finish() {
  request_->connection().end_stream();
  co_return co_await io_of(*request_).send();
}

}  // namespace duet
