// duet::fiber::HttpServer's WebSocket routes on both backends, the fiber
// voice's twin of tests/task/http_server_websocket_test.cpp: the takeover
// after pipelined requests (the first frame sent beside the head), a refused
// upgrade, the server's stop reaching the handler.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <stop_token>
#include <string>
#include <tuple>

#include "duet/stackful/http_server.hpp"
#include "support/fiber_http_server_harness.hpp"
#include "support/http_raw_client.hpp"
#include "support/ws_raw.hpp"

namespace {

using duet::fiber::HttpServer;
using duet::http::Request;
using duet::http::Response;
using duet::test::RawHttpClient;
using duet::test::ws_client_frame;
using duet::test::ws_server_frame;
using duet::test::ws_upgrade_request;

Response hello(Request&) { return Response::text(200, "hello"); }

// Echoes every message until the peer closes; at the server's stop, closes with 1001.
template <typename Stream>
void echo(Request& req, duet::fiber::WebSocket<Stream> ws) {
  const std::stop_token stop = req.stop_token();
  while (auto m = ws.receive({}, stop)) {
    if (!(m->is_text() ? ws.send_text(m->data()) : ws.send_binary(m->payload))) break;
  }
  if (stop.stop_requested()) (void)ws.close(1001, "going away");
}

constexpr std::string_view accept_field = "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

}  // namespace

TEST_CASE("fibers: a WebSocket route takes its connection over after the pipelined requests before it") {
  HttpServer server;
  server.get("/", hello);
  server.websocket("/chat", [](Request& req, auto ws) { echo(req, std::move(ws)); });
  const std::string close_1000("\x03\xe8", 2);
  auto seen = duet::test::with_fiber_http_server(server, [&close_1000](std::uint16_t port) {
    RawHttpClient c(port);
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

TEST_CASE("fibers: a request to a WebSocket route that is no upgrade is refused and the connection closes") {
  HttpServer server;
  server.websocket("/chat", [](Request& req, duet::fiber::WebSocket<duet::fiber::TcpStream> ws) {
    echo(req, std::move(ws));
  });
  auto seen = duet::test::with_fiber_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send("GET /chat HTTP/1.1\r\nHost: a\r\n\r\n");
    auto r = c.read_response();
    return std::pair(r, c.closed_by_server());
  });
  CHECK(seen.first.status == 400);
  CHECK(seen.first.has("Connection: close"));
  CHECK(seen.second);
}

TEST_CASE("fibers: the server's stop reaches a WebSocket handler through the request's stop token") {
  HttpServer server;
  bool upgraded = false;
  server.websocket("/chat", [&upgraded](Request& req, auto ws) {
    upgraded = true;
    echo(req, std::move(ws));
  });
  const std::string close_1001 = std::string("\x03\xe9", 2) + "going away";
  auto seen = duet::test::with_fiber_http_server(
      server,
      [](std::uint16_t port) {
        RawHttpClient c(port);
        c.send(ws_upgrade_request());
        auto up = c.read_response();
        std::string close = c.read_exactly(2 + 12);  // the server's close, once it stops
        c.send(ws_client_frame(0x88, std::string("\x03\xe9", 2)));
        return std::tuple(up.status, close, c.closed_by_server());
      },
      nullptr, &upgraded);
  auto& [status, close, closed] = seen;
  CHECK(status == 101);
  CHECK(close == ws_server_frame(0x88, close_1001));
  CHECK(closed);
}

void fail_after_one(Request&, duet::fiber::WebSocket<duet::fiber::TcpStream> ws) {
  if (ws.receive()) throw std::runtime_error("the handler's bug");
}

TEST_CASE("fibers: a WebSocket handler that throws ends its connection and the server goes on") {
  HttpServer server;
  server.get("/", hello);
  server.websocket("/chat", fail_after_one);
  auto seen = duet::test::with_fiber_http_server(server, [](std::uint16_t port) {
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
