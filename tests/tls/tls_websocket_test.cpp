// WebSocket over TLS (wss): duet::WebSocket<TlsStream> and
// duet::fiber::WebSocket<fiber::TlsStream>, a duet client and server over
// loopback TCP on both backends: the TLS handshake happens on the upgrade's
// first bytes, then messages (deflated) and the close handshake as over TCP.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/tls_stream.hpp"
#include "duet/stackful/websocket.hpp"
#include "duet/task/http_server.hpp"
#include "duet/task/run.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tls_stream.hpp"
#include "duet/task/websocket.hpp"
#include "duet/task/when_all.hpp"
#include "tls/tls_certs.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::IoResult;
using duet::SocketAddress;
using duet::Task;
using duet::TlsContext;
using duet::test::tls_certs;

namespace {

duet::WsOptions deflating() {
  duet::WsOptions o;
  o.session.deflate.enabled = true;
  return o;
}

Task<IoResult<duet::TcpStream>> accept_one(duet::TcpListener& l) { co_return co_await l.accept(); }
Task<IoResult<duet::TcpStream>> connect_to(duet::EventLoop& loop, SocketAddress a) {
  co_return co_await duet::TcpStream::connect(loop, a);
}

Task<std::uint16_t> tls_echo_server(duet::TlsStream tls) {
  auto ws = co_await duet::ws_accept(std::move(tls), deflating());
  REQUIRE(ws);
  for (;;) {
    auto m = co_await ws->receive(5s);
    if (!m) break;
    auto sent = co_await ws->send_text(m->data());
    REQUIRE(sent);
  }
  co_return ws->close_code();
}

Task<std::string> tls_echo_client(duet::TlsStream tls) {
  auto ws = co_await duet::ws_connect(std::move(tls), "localhost", "/secure", deflating());
  REQUIRE(ws);
  CHECK(ws->deflate());
  const std::string text(3000, 's');
  auto sent = co_await ws->send_text(text);
  REQUIRE(sent);
  auto m = co_await ws->receive(5s);
  REQUIRE(m);
  std::string got(m->data());
  auto closed = co_await ws->close(1000);
  CHECK(closed);
  co_return got;
}

Task<void> wss_round_trip(duet::EventLoop& loop, const TlsContext& server_ctx, const TlsContext& client_ctx) {
  auto listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  auto [accepted, connected] = co_await duet::when_all(accept_one(listener), connect_to(loop, listener.local_address()));
  REQUIRE(accepted.ok());
  REQUIRE(connected.ok());
  auto [code, echoed] =
      co_await duet::when_all(tls_echo_server(duet::TlsStream(std::move(*accepted), server_ctx)),
                              tls_echo_client(duet::TlsStream(std::move(*connected), client_ctx, "localhost")));
  CHECK(code == 1000);
  CHECK(echoed == std::string(3000, 's'));
}

// HttpServer's WebSocket routes over TLS: a generic handler serves wss, one
// written for TcpStream alone leaves its route answered 404 there.
template <typename Stream>
Task<void> route_echo(duet::http::Request&, duet::WebSocket<Stream> ws) {
  for (;;) {
    auto m = co_await ws.receive(5s);
    if (!m) break;
    auto sent = co_await ws.send_text(m->data());
    if (!sent) break;
  }
}

Task<IoResult<duet::WebSocket<duet::TlsStream>>> wss_connect(duet::EventLoop& loop, SocketAddress at,
                                                             const TlsContext& ctx, std::string target) {
  auto conn = co_await duet::TcpStream::connect(loop, at);
  if (!conn) co_return conn.error();
  co_return co_await duet::ws_connect(duet::TlsStream(std::move(*conn), ctx, "localhost"), "localhost", target);
}

// What the clients saw: the echo (or the error that stopped the first), and the refusal.
Task<std::pair<std::string, std::error_code>> wss_clients(duet::EventLoop& loop, SocketAddress at,
                                                          const TlsContext& ctx) {
  std::pair<std::string, std::error_code> seen;  // named: no temporaries in co_return (GCC 12)
  auto ws = co_await wss_connect(loop, at, ctx, "/secure");
  if (!ws) {
    seen.first = "connect: " + ws.error().message();
    co_return seen;
  }
  auto sent = co_await ws->send_text("over tls");
  auto m = co_await ws->receive(5s);
  if (!sent || !m) {
    seen.first = "no echo";
    co_return seen;
  }
  seen.first = m->data();
  auto closed = co_await ws->close(1000);
  CHECK(closed);
  auto refused = co_await wss_connect(loop, at, ctx, "/plain-only");
  if (!refused) seen.second = refused.error();
  co_return seen;
}

// The clients, then the server's stop (also when they failed: the server must end).
Task<std::pair<std::string, std::error_code>> clients_then_stop(duet::EventLoop& loop, SocketAddress at,
                                                                const TlsContext& ctx, std::stop_source stop) {
  auto seen = co_await wss_clients(loop, at, ctx);
  stop.request_stop();
  co_return seen;
}

Task<void> wss_through_http_server(duet::EventLoop& loop, const TlsContext& server_ctx,
                                   const TlsContext& client_ctx) {
  duet::HttpServer server;
  server.websocket("/secure", [](duet::http::Request& r, auto ws) { return route_echo(r, std::move(ws)); });
  server.websocket("/plain-only", [](duet::http::Request& r, duet::WebSocket<duet::TcpStream> ws) {
    return route_echo(r, std::move(ws));
  });
  auto listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  std::stop_source stop;
  auto [served, seen] = co_await duet::when_all(server.serve(listener, server_ctx, stop.get_token()),
                                                clients_then_stop(loop, listener.local_address(), client_ctx, stop));
  (void)served;
  CHECK(seen.first == "over tls");
  CHECK(seen.second == std::errc::protocol_error);  // the 404 is no 101
}

}  // namespace

TEST_CASE("HttpServer serves a WebSocket route over TLS; a route for plain TCP only refuses wss") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::EventLoop loop(backend);
  duet::TlsOptions server_options = tls_certs().server();
  server_options.alpn = {"http/1.1"};  // the HTTP server closes a client that agreed on another protocol
  duet::TlsOptions client_options = tls_certs().client();
  client_options.alpn = {"http/1.1"};
  TlsContext server_ctx(server_options);
  TlsContext client_ctx(client_options);
  duet::run_until_complete(loop, wss_through_http_server(loop, server_ctx, client_ctx));
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a duet WebSocket client and server talk over TLS, deflated, and close with 1000") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::EventLoop loop(backend);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  duet::run_until_complete(loop, wss_round_trip(loop, server_ctx, client_ctx));
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("fibers: a duet WebSocket client and server talk over TLS, deflated, and close with 1000") {
  namespace fiber = duet::fiber;
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  fiber::Scheduler scheduler({.backend = backend, .stack_size = 256 * 1024});  // OpenSSL wants deep stacks
  scheduler.spawn([&] {
    auto listener = fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
    auto acceptor = fiber::spawn([&listener] { return listener.accept(); });
    auto connected = fiber::TcpStream::connect(listener.local_address());
    auto accepted = acceptor.join();
    REQUIRE(connected.ok());
    REQUIRE(accepted.ok());
    auto server = fiber::spawn([&] {
      auto ws = fiber::ws_accept(fiber::TlsStream(std::move(*accepted), server_ctx), deflating());
      REQUIRE(ws);
      for (auto m = ws->receive(5s); m; m = ws->receive(5s)) REQUIRE(ws->send_binary(m->payload));
      return ws->close_code();
    });
    auto ws = fiber::ws_connect(fiber::TlsStream(std::move(*connected), client_ctx, "localhost"), "localhost", "/",
                                deflating());
    REQUIRE(ws);
    CHECK(ws->deflate());
    const std::string bytes(3000, '\x01');
    REQUIRE(ws->send_binary(bytes));
    auto m = ws->receive(5s);
    REQUIRE(m);
    CHECK(m->data() == bytes);
    CHECK(ws->close(1000));
    CHECK(server.join() == 1000);
  }).join();
  scheduler.run();
  CHECK(scheduler.loop().in_flight() == 0);
}
