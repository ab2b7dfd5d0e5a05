// duet::HttpServer's WebSocket routes (HttpServer::websocket) on both
// backends, spoken to in raw bytes by a blocking client on its own thread
// (tests/support/ws_raw.hpp): the takeover after pipelined requests, with the
// first frames sent beside the head; a refused upgrade; a plain route beside
// it; the server's stop reaching the handler. The fiber voice's twin:
// tests/stackful/http_server_websocket_fiber_test.cpp.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <stop_token>
#include <string>
#include <tuple>

#include "duet/task/http_server.hpp"
#include "support/http_raw_client.hpp"
#include "support/http_server_harness.hpp"
#include "support/ws_raw.hpp"

namespace {

using duet::HttpServer;
using duet::Task;
using duet::http::Request;
using duet::http::Response;
using duet::test::RawHttpClient;
using duet::test::ws_client_frame;
using duet::test::ws_server_frame;
using duet::test::ws_upgrade_request;

Task<Response> hello(Request&) { co_return Response::text(200, "hello"); }

// guide:begin ws_route_handler
// A WebSocket route's handler: echoes every message until the peer closes;
// at the server's stop (the request's token), closes with 1001.
template <typename Stream>
duet::Task<void> echo(duet::http::Request& req, duet::WebSocket<Stream> ws) {
  const std::stop_token stop = req.stop_token();
  for (;;) {
    auto m = co_await ws.receive({}, stop);
    if (!m) break;
    duet::IoResult<void> sent;
    if (m->is_text()) sent = co_await ws.send_text(m->data());
    else sent = co_await ws.send_binary(m->payload);
    if (!sent) break;
  }
  if (stop.stop_requested()) {
    std::string_view reason = "going away";
    auto closed = co_await ws.close(1001, reason);
    (void)closed;
  }
}
// guide:end

// guide:begin ws_route
void add_routes(duet::HttpServer& server) {
  server.get("/", hello);
  // GET /chat is taken over: ws_accept answers 101 (or 400/426), then echo owns the connection.
  server.websocket("/chat", [](duet::http::Request& req, auto ws) { return echo(req, std::move(ws)); });
}
// guide:end

constexpr std::string_view accept_field = "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

}  // namespace

TEST_CASE("a WebSocket route takes its connection over after the pipelined requests before it") {
  HttpServer server;
  add_routes(server);
  const std::string close_1000("\x03\xe8", 2);
  auto seen = duet::test::with_http_server(server, [&close_1000](std::uint16_t port) {
    RawHttpClient c(port);
    // A GET, the upgrade and its first frame, all in one send.
    c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n" + ws_upgrade_request() + ws_client_frame(0x81, "hi"));
    auto first = c.read_response();
    auto upgrade = c.read_response();
    std::string echoed = c.read_exactly(4);
    c.send(ws_client_frame(0x88, close_1000));
    std::string close_echo = c.read_exactly(4);
    const bool closed = c.closed_by_server();
    return std::tuple(first, upgrade, echoed, close_echo, closed);
  });
  auto& [first, upgrade, echoed, close_echo, closed] = seen;
  CHECK(first.status == 200);
  CHECK(first.body == "hello");
  CHECK(upgrade.status == 101);
  CHECK(upgrade.has(accept_field));
  CHECK(echoed == ws_server_frame(0x81, "hi"));
  CHECK(close_echo == ws_server_frame(0x88, close_1000));
  CHECK(closed);
}

TEST_CASE("a request to a WebSocket route that is no upgrade is refused and the connection closes") {
  HttpServer server;
  server.websocket("/chat", [](Request& req, auto ws) { return echo(req, std::move(ws)); });
  auto seen = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send("GET /chat HTTP/1.1\r\nHost: a\r\n\r\n");
    auto r = c.read_response();
    return std::pair(r, c.closed_by_server());
  });
  CHECK(seen.first.status == 400);
  CHECK(seen.first.has("Connection: close"));
  CHECK(seen.second);
}

TEST_CASE("a WebSocket version the server does not speak gets 426 naming version 13") {
  HttpServer server;
  server.websocket("/chat", [](Request& req, auto ws) { return echo(req, std::move(ws)); });
  auto r = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send(ws_upgrade_request("8"));
    return c.read_response();
  });
  CHECK(r.status == 426);
  CHECK(r.has("Sec-WebSocket-Version: 13"));
}

TEST_CASE("a handler written for WebSocket<TcpStream> alone serves the route over TCP") {
  HttpServer server;
  server.websocket("/chat", [](Request& req, duet::WebSocket<duet::TcpStream> ws) { return echo(req, std::move(ws)); });
  auto r = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send(ws_upgrade_request() + ws_client_frame(0x82, "ab"));
    auto up = c.read_response();
    return std::pair(up.status, c.read_exactly(4));
  });
  CHECK(r.first == 101);
  CHECK(r.second == ws_server_frame(0x82, "ab"));
}

TEST_CASE("the server's stop reaches a WebSocket handler through the request's stop token") {
  HttpServer server;
  bool upgraded = false;
  server.get("/", hello);
  server.websocket("/chat", [&upgraded](Request& req, auto ws) {
    upgraded = true;
    return echo(req, std::move(ws));
  });
  const std::string close_1001 = std::string("\x03\xe9", 2) + "going away";
  auto seen = duet::test::with_http_server(
      server,
      [](std::uint16_t port) {
        RawHttpClient c(port);
        c.send(ws_upgrade_request());
        auto up = c.read_response();
        std::string close = c.read_exactly(2 + 12);  // the server's close, once it stops
        c.send(ws_client_frame(0x88, std::string("\x03\xe9", 2)));
        return std::tuple(up.status, close, c.closed_by_server());
      },
      &upgraded);
  auto& [status, close, closed] = seen;
  CHECK(status == 101);
  CHECK(close == ws_server_frame(0x88, close_1001));
  CHECK(closed);
}

Task<void> fail_after_one(Request&, duet::WebSocket<duet::TcpStream> ws) {
  auto m = co_await ws.receive();
  if (m) throw std::runtime_error("the handler's bug");
}

TEST_CASE("a WebSocket handler that throws ends its connection and the server goes on") {
  HttpServer server;
  server.get("/", hello);
  server.websocket("/chat", fail_after_one);
  auto seen = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send(ws_upgrade_request() + ws_client_frame(0x81, "boom"));
    const int status = c.read_response().status;
    const bool closed = c.closed_by_server();
    RawHttpClient next(port);
    next.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    return std::tuple(status, closed, next.read_response().body);
  });
  auto& [status, closed, body] = seen;
  CHECK(status == 101);
  CHECK(closed);
  CHECK(body == "hello");
}
