// duet::fiber::HttpServer (stackful/http_server.hpp) on both backends, spoken
// to in raw bytes by a blocking client on its own thread: the cases of
// tests/task/http_server_test.cpp that exercise the voice (handlers as plain
// functions, streaming both ways, timeouts, a failing handler, a graceful
// stop, TLS with ALPN answering curl). The HTTP rules themselves live in the
// shared core, tested there.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "duet/stackful/http_server.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "support/client_thread.hpp"
#include "support/curl.hpp"
#include "support/fiber_http_server_harness.hpp"
#include "support/http_raw_client.hpp"
#include "support/on_fibers.hpp"
#include "tls/tls_certs.hpp"

namespace {

using duet::Backend;
using duet::fiber::HttpServer;
using duet::http::Request;
using duet::http::Response;
using duet::test::RawHttpClient;
using duet::test::RawResponse;
using namespace std::chrono_literals;

Response hello(Request&) { return Response::text(200, "hello"); }

Response echo_param(Request& req) { return Response::text(200, std::string(req.param("key"))); }

Response echo_body(Request& req) { return Response::text(200, std::string(req.body())); }

Response stream_back(Request& req) {
  duet::fiber::HttpBodyReader body(req);
  duet::fiber::HttpResponseStream out(req);
  if (!out.start(200, {{"Content-Type", "application/octet-stream"}})) return Response::streamed();
  for (;;) {
    auto piece = body.read();
    if (!piece || piece->empty() || !out.write(*piece)) break;
  }
  (void)out.finish();
  return Response::streamed();
}

Response endless(Request& req) {
  duet::fiber::HttpResponseStream out(req);
  const std::string piece(64 * 1024, 'x');
  bool ok = out.start(200).ok();
  for (int i = 0; ok && i < 1024; ++i) ok = out.write(piece).ok();  // until send_timeout
  return Response::streamed();
}

Response throws(Request&) { throw std::runtime_error("handler bug"); }

const char* const get_root = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";

}  // namespace

TEST_CASE("fiber server: keep-alive, pipelining, parameters and 404/405") {
  HttpServer server;
  server.get("/", hello).get("/kv/{key}", echo_param);
  auto got = duet::test::with_fiber_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send(std::string(get_root) + "GET /kv/apple HTTP/1.1\r\nHost: t\r\n\r\nGET /none HTTP/1.1\r\nHost: t\r\n\r\n");
    std::vector<RawResponse> out{c.read_response(), c.read_response(), c.read_response()};
    c.send("POST /kv/a HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
    out.push_back(c.read_response());
    return out;
  });
  CHECK(got[0].body == "hello");
  CHECK(got[1].body == "apple");
  CHECK(got[2].status == 404);
  CHECK(got[3].status == 405);
  CHECK(got[3].has("Allow: GET, HEAD\r\n"));
}

TEST_CASE("fiber server: bodies whole and streamed, responses streamed") {
  HttpServer server;
  server.post("/echo", echo_body).route("POST", "/stream", stream_back, duet::http::BodyMode::stream);
  auto got = duet::test::with_fiber_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nfoo\r\n0\r\n\r\n");
    std::vector<RawResponse> out{c.read_response()};
    c.send("POST /stream HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello");
    std::this_thread::sleep_for(20ms);
    c.send(" world");
    out.push_back(c.read_response());
    return out;
  });
  CHECK(got[0].body == "foo");
  CHECK(got[1].has("Transfer-Encoding: chunked\r\n"));
  CHECK(got[1].body == "hello world");
}

TEST_CASE("fiber server: a bad request gets 400 and a close; a slow head 408; a handler that throws 500") {
  duet::http::HttpServerOptions options;
  options.head_timeout = 150ms;
  HttpServer server(options);
  server.get("/throw", throws);
  auto got = duet::test::with_fiber_http_server(server, [](std::uint16_t port) {
    std::vector<std::pair<int, bool>> out;
    for (const char* req : {"GET / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                            "GET / HTTP/1.1\r\nHost", "GET /throw HTTP/1.1\r\nHost: t\r\n\r\n"}) {
      RawHttpClient c(port);
      c.send(req);
      const int status = c.read_response().status;
      out.emplace_back(status, c.closed_by_server());
    }
    return out;
  });
  CHECK(got[0] == std::make_pair(400, true));
  CHECK(got[1] == std::make_pair(408, true));
  CHECK(got[2] == std::make_pair(500, true));
}

TEST_CASE("fiber server: a client that never reads is closed at send_timeout") {
  duet::http::HttpServerOptions options;
  options.send_timeout = 200ms;
  HttpServer server(options);
  server.get("/endless", endless);
  auto got = duet::test::with_fiber_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port, 5s, 4096);
    c.send("GET /endless HTTP/1.1\r\nHost: t\r\n\r\n");
    std::this_thread::sleep_for(600ms);
    return c.read_until_close().size();
  });
  CHECK(got < (64u << 20));
}

TEST_CASE("fiber server: over TLS it handshakes with ALPN http/1.1 and answers curl, keeping the connection") {
  const auto& certs = duet::test::tls_certs();
  duet::TlsOptions options = certs.server();
  options.alpn = {"http/1.1"};
  const duet::TlsContext tls(options);
  HttpServer server;
  server.get("/", hello);
  const std::string ca = certs.file("ca.crt");
  auto got = duet::test::with_fiber_http_server(server, [ca](std::uint16_t port) { return duet::test::curl_https_twice(port, ca); }, &tls);
  // curl offered h2 and http/1.1: the server chose http/1.1 and kept the connection (num_connects 0).
  CHECK(got == "hello 200 1\nhello 200 0\nALPN http/1.1 rc=0\n");
}

namespace {
std::stop_source* slow_stop = nullptr;

Response stop_then_answer(Request&) {
  slow_stop->request_stop();
  duet::fiber::sleep_for(100ms);
  return Response::text(200, "finished");
}
}  // namespace

TEST_CASE("fiber server: a graceful stop closes idle connections and finishes the request in progress") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  auto [idle_closed, answer, busy_closed] = duet::test::on_fibers(backend, [] {
    std::stop_source stop;
    slow_stop = &stop;
    HttpServer server;
    server.get("/slow", stop_then_answer);
    auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 0).value());
    const std::uint16_t port = listener.local_address().port();
    duet::test::ClientThread<std::tuple<bool, RawResponse, bool>> client([port] {
      RawHttpClient idle(port);
      idle.send(get_root);
      (void)idle.read_response();
      RawHttpClient busy(port);
      busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
      RawResponse r = busy.read_response();
      return std::make_tuple(idle.closed_by_server(), r, busy.closed_by_server());
    });
    server.serve(listener, stop.get_token());  // returns once all ended
    return client.result();
  });
  CHECK(idle_closed);
  CHECK(answer.body == "finished");
  CHECK(answer.has("Connection: close\r\n"));
  CHECK(busy_closed);
}
