// fiber::HttpServer: the connection loop over the sans-I/O core
// (http/detail/server_connection.hpp) with blocking fiber calls; the same
// loop as duet::HttpServer's (task/http_server.cpp), step for step.
#include "duet/stackful/http_server.hpp"

#include <cstddef>
#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "duet/http/detail/server_connection.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/stackful/event.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace duet::fiber {

namespace {

using http::detail::BodyPiece;
using http::detail::ServerConnection;
using http::detail::ServerStep;

constexpr int fiber_voice = 2;  // ServerConnection::driver's tag for this voice

// The connection's I/O, reached by HttpBodyReader and HttpResponseStream through the core.
class ConnectionIo {
 public:
  virtual ~ConnectionIo() = default;
  // One receive within the core's wait budget, its bytes (or its failure) given to the core.
  virtual IoResult<void> receive(const std::stop_token& token) = 0;
  // The core's output, then core.sent(); a failure marks the core failed.
  virtual IoResult<void> send() = 0;
};

template <typename Stream>
class StreamIo final : public ConnectionIo {
 public:
  StreamIo(Stream& stream, ServerConnection& core, const http::HttpServerOptions& options) noexcept
      : stream_(stream), core_(core), options_(options) {}

  IoResult<void> receive(const std::stop_token& token) override {
    const auto budget = core_.wait_budget();
    std::error_code failed = std::make_error_code(std::errc::timed_out);
    if (budget.count() > 0) {
      if constexpr (std::is_same_v<Stream, TlsStream>) {
        auto got = stream_.recv(core_.recv_space(), budget, token);
        if (got) core_.commit(*got);
        failed = got ? std::error_code() : got.error();
      } else {
        auto got = stream_.recv_pooled(budget, token);  // a waiting connection holds no buffer
        if (got) core_.feed(got->bytes());
        failed = got ? std::error_code() : got.error();
      }
    }
    if (failed) core_.receive_failed(failed);
    return failed ? IoResult<void>(failed) : IoResult<void>();
  }

  IoResult<void> send() override {
    auto r = stream_.send_all(core_.output(), options_.send_timeout);
    if (!r) {
      core_.failed();  // a client that does not read (send_timeout), or is gone
      return r.error();
    }
    core_.sent();
    return {};
  }

 private:
  Stream& stream_;
  ServerConnection& core_;
  const http::HttpServerOptions& options_;
};

ConnectionIo& io_of(http::Request& request) {
  return *static_cast<ConnectionIo*>(request.connection().driver(fiber_voice));
}

}  // namespace

HttpServer::HttpServer(http::HttpServerOptions options) : options_(std::move(options)) {
  http::check_server_options(options_);
}

HttpServer& HttpServer::route(std::string_view method, std::string_view pattern, HttpHandler handler,
                              http::BodyMode mode) {
  if (!handler) throw std::invalid_argument("duet::fiber::HttpServer: an empty handler");
  if (mode == http::BodyMode::upgrade)
    throw std::invalid_argument("duet::fiber::HttpServer: an upgrade route is added by websocket()");
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
bool HttpServer::take_over(Stream& stream, ServerConnection& core) {
  const WsRoute& route = *ws_routes_[core.route()];
  const WsHandler<Stream>* handler = nullptr;
  if constexpr (std::is_same_v<Stream, TlsStream>) handler = &route.tls;
  else handler = &route.tcp;
  if (!*handler) return false;
  http::Request& request = core.request();
  auto ws = ws_accept(std::move(stream), request.head(), core.leftover(), route.options, request.stop_token());
  if (!ws) return true;  // refused (400, 426) or cut short: the connection is over
  try {
    (*handler)(request, std::move(*ws));
  } catch (...) {  // the handler's failure ends its connection (the WebSocket closed it), not the server
  }
  return true;
}

template <typename Stream>
void HttpServer::run(Stream& stream, const std::stop_token& stop) {
  ServerConnection core(routes_, options_, stop);
  StreamIo<Stream> io(stream, core, options_);
  core.set_driver(static_cast<ConnectionIo*>(&io), fiber_voice);
  const std::stop_token none;
  for (;;) {
    const ServerStep step = core.next();
    if (step == ServerStep::close) break;
    if (step == ServerStep::send) {
      (void)io.send();  // a failure closes (StreamIo::send tells the core)
    } else if (step == ServerStep::upgrade) {
      if (take_over(stream, core)) break;  // the stream was the WebSocket's: nothing more here
      core.respond(http::Response::text(404, "no WebSocket route for this transport\n"));
    } else if (step == ServerStep::receive) {
      // Only the wait between requests ends at a stop: a request in progress is finished.
      (void)io.receive(core.idle_wait() ? stop : none);
    } else {
      std::optional<http::Response> response;
      try {
        response.emplace(handlers_[core.route()](core.request()));
      } catch (...) {  // the handler's failure is its client's 500, not the server's end
      }
      if (response) core.respond(*response);
      else core.handler_failed();
    }
  }
}

void HttpServer::serve_connection(TcpStream conn, std::stop_token stop) { run(conn, stop); }

void HttpServer::serve_connection(TlsStream conn, std::stop_token stop) { run(conn, stop); }

void HttpServer::serve_tls(TcpStream conn, const TlsContext& tls, const std::stop_token& stop) {
  TlsStream stream(std::move(conn), tls);
  if (!stream.handshake(options_.head_timeout, stop)) return;
  const std::string_view alpn = stream.engine().alpn();
  if (!alpn.empty() && alpn != "http/1.1") return;
  run(stream, stop);
}

namespace {

// The connection fibers of one serve(): it returns after the last.
struct Live {
  std::size_t count = 0;
  Event none;
};

}  // namespace

void HttpServer::accept_all(TcpListener& listener, const TlsContext* tls, const std::stop_token& stop) {
  Live live;
  while (!stop.stop_requested()) {
    auto conn = listener.accept(stop);
    if (!conn) {
      // EMFILE: wait for connections to end, do not spin; others (ECONNABORTED...) at once.
      const auto pause = default_accept_backoff(conn.error(), listener.native_handle());
      if (pause.count() > 0 && !stop.stop_requested()) sleep_for(pause, stop);
      continue;
    }
    try {
      spawn([this, tls, &live, &stop](TcpStream c) {
        struct Done {  // also when the connection throws
          Live& live;
          ~Done() {
            if (--live.count == 0) live.none.set();
          }
        } done{live};
        if (tls != nullptr) serve_tls(std::move(c), *tls, stop);
        else run(c, stop);
      }, std::move(*conn)).detach();
      ++live.count;  // the fiber runs in a later turn, never inside spawn
    } catch (const std::exception&) {
      // No fiber (stacks or mappings exhausted): this connection is closed, the server goes on.
    }
  }
  while (live.count > 0) {
    live.none.reset();
    (void)live.none.wait();
  }
}

void HttpServer::serve(TcpListener& listener, std::stop_token stop) { accept_all(listener, nullptr, stop); }

void HttpServer::serve(TcpListener& listener, const TlsContext& tls, std::stop_token stop) {
  accept_all(listener, &tls, stop);
}

HttpBodyReader::HttpBodyReader(http::Request& request) : request_(&request) {
  if (request.body_mode() != http::BodyMode::stream)
    throw std::logic_error("duet::fiber::HttpBodyReader: this route reads its body whole (http::BodyMode::whole)");
}

IoResult<std::string_view> HttpBodyReader::read() {
  ServerConnection& core = request_->connection();
  ConnectionIo& io = io_of(*request_);
  const std::stop_token none;
  for (;;) {
    std::string_view piece;
    const BodyPiece found = core.next_body_piece(piece);
    if (found == BodyPiece::data) return piece;
    if (found == BodyPiece::end) return std::string_view();
    if (found == BodyPiece::failed) return std::make_error_code(std::errc::bad_message);
    if (!core.output().empty()) {  // "100 Continue" first: the client waits for it
      if (auto sent = io.send(); !sent) return sent.error();
    }
    if (auto got = io.receive(none); !got) return got.error();
  }
}

HttpResponseStream::HttpResponseStream(http::Request& request) : request_(&request) {}

IoResult<void> HttpResponseStream::start(int status, const Headers& headers) {
  request_->connection().begin_stream(status, headers);
  return io_of(*request_).send();
}

IoResult<void> HttpResponseStream::write(std::string_view data) {
  request_->connection().stream_piece(data);
  return io_of(*request_).send();
}

IoResult<void> HttpResponseStream::finish() {
  request_->connection().end_stream();
  return io_of(*request_).send();
}

}  // namespace duet::fiber
