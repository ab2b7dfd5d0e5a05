// duet::HttpServer (task/http_server.hpp) on both backends, spoken to in raw
// bytes by a blocking client on its own thread: keep-alive and pipelining,
// routing (parameters, prefix, 404, 405), bodies whole and streamed, streamed
// responses, 100-continue, the defences (400 and close, the head, idle and
// send timeouts), a failing handler, a graceful stop, and TLS with ALPN (curl).
// fiber::HttpServer runs the cases that exercise the voice in tests/stackful/http_server_fiber_test.cpp.
#include <catch2/catch.hpp>

#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/http_server.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/when_all.hpp"
#include "support/client_thread.hpp"
#include "support/curl.hpp"
#include "support/http_raw_client.hpp"
#include "support/http_server_harness.hpp"
#include "tls/tls_certs.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::HttpServer;
using duet::Task;
using duet::http::Request;
using duet::http::Response;
using duet::test::RawHttpClient;
using duet::test::RawResponse;
using namespace std::chrono_literals;

Task<Response> hello(Request&) { co_return Response::text(200, "hello"); }

Task<Response> echo_param(Request& req) {
  co_return Response::text(200, std::string(req.param("key")) + "|" + std::string(req.param("*")));
}

Task<Response> echo_body(Request& req) { co_return Response::text(200, std::string(req.body())); }

// Streams the request body back, piece by piece, as a chunked response.
Task<Response> stream_back(Request& req) {
  duet::HttpBodyReader body(req);
  duet::HttpResponseStream out(req);
  duet::HttpResponseStream::Headers headers{{"Content-Type", "application/octet-stream"}};
  auto started = co_await out.start(200, std::move(headers));
  if (!started) co_return Response::streamed();
  for (;;) {
    auto piece = co_await body.read();
    if (!piece || piece->empty()) break;
    auto wrote = co_await out.write(*piece);
    if (!wrote) break;
  }
  (void)co_await out.finish();
  co_return Response::streamed();
}

Task<Response> throws(Request&) {
  throw std::runtime_error("handler bug");
  co_return Response::text(200, "never");
}

// 64 MiB in 64 KiB pieces, for as long as the client takes them.
Task<Response> endless(Request& req) {
  duet::HttpResponseStream out(req);
  auto started = co_await out.start(200);
  const std::string piece(64 * 1024, 'x');
  for (int i = 0; started && i < 1024; ++i) {
    auto wrote = co_await out.write(piece);
    if (!wrote) break;  // send_timeout: the client is not reading
  }
  co_return Response::streamed();
}

const char* const get_root = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";

}  // namespace

TEST_CASE("a GET is answered with the handler's response and the connection stays open for the next") {
  HttpServer server;
  server.get("/", hello);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    std::vector<RawResponse> out;
    for (int i = 0; i < 3; ++i) {
      c.send(get_root);
      out.push_back(c.read_response());
    }
    return out;
  });
  for (const RawResponse& r : got) {
    CHECK(r.head.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(r.body == "hello");
    CHECK(r.has("Content-Length: 5\r\n"));
    CHECK(r.has("Content-Type: text/plain\r\n"));
    CHECK(r.has("\r\nDate: "));
    CHECK_FALSE(r.has("Connection: close"));
  }
}

TEST_CASE("pipelined requests are answered in order, HEAD without the body") {
  HttpServer server;
  server.get("/", hello).get("/kv/{key}", echo_param);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send("GET /kv/a HTTP/1.1\r\nHost: t\r\n\r\nHEAD / HTTP/1.1\r\nHost: t\r\n\r\nGET /kv/b HTTP/1.1\r\nHost: t\r\n\r\n");
    std::vector<RawResponse> out;
    out.push_back(c.read_response());
    out.push_back(c.read_response(true));
    out.push_back(c.read_response());
    return out;
  });
  CHECK(got[0].body == "a|");
  CHECK(got[1].status == 200);
  CHECK(got[1].has("Content-Length: 5\r\n"));
  CHECK(got[2].body == "b|");
}

TEST_CASE("routes match parameters and prefixes; others get 404, or 405 with Allow") {
  HttpServer server;
  server.get("/kv/{key}", echo_param).put("/kv/{key}", echo_body).get("/static/*", echo_param);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    std::vector<RawResponse> out;
    for (const char* req : {"GET /static/css/a.css HTTP/1.1\r\nHost: t\r\n\r\n", "GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n",
                            "DELETE /kv/x HTTP/1.1\r\nHost: t\r\n\r\n", "GET /kv/ HTTP/1.1\r\nHost: t\r\n\r\n"}) {
      c.send(req);
      out.push_back(c.read_response());
    }
    return out;
  });
  CHECK(got[0].body == "|css/a.css");
  CHECK(got[1].status == 404);
  CHECK(got[2].status == 405);
  CHECK(got[2].has("Allow: GET, HEAD, PUT\r\n"));
  CHECK_FALSE(got[2].has("Connection: close"));  // no body to skip: the connection goes on
  CHECK(got[3].status == 404);                   // a parameter is never empty
}

TEST_CASE("a body is read whole, by Content-Length or chunked, and after 100 Continue when asked") {
  HttpServer server;
  server.post("/echo", echo_body);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    std::vector<RawResponse> out;
    c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nab");
    std::this_thread::sleep_for(20ms);  // the rest later: the server waits for it
    c.send("cde");
    out.push_back(c.read_response());
    c.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nfoo\r\n4\r\nbar!\r\n0\r\n\r\n");
    out.push_back(c.read_response());
    c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    out.push_back(c.read_response());  // the interim 100
    c.send("body");
    out.push_back(c.read_response());
    return out;
  });
  CHECK(got[0].body == "abcde");
  CHECK(got[1].body == "foobar!");
  CHECK(got[2].status == 100);
  CHECK(got[3].body == "body");
}

TEST_CASE("a streamed route reads its body in pieces and streams its response chunked") {
  HttpServer server;
  server.route("POST", "/stream", stream_back, duet::http::BodyMode::stream);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send("POST /stream HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    std::this_thread::sleep_for(20ms);
    c.send("6\r\n world\r\n0\r\n\r\n");
    std::vector<RawResponse> out{c.read_response()};
    c.send(get_root);  // kept alive after the stream: 404 here
    out.push_back(c.read_response());
    return out;
  });
  CHECK(got[0].has("Transfer-Encoding: chunked\r\n"));
  CHECK(got[0].body == "hello world");
  CHECK(got[1].status == 404);
}

TEST_CASE("a malformed or smuggling request gets its error and the connection closes") {
  HttpServer server;
  server.post("/echo", echo_body);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    std::vector<std::pair<RawResponse, bool>> out;
    for (const char* req : {"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                            "GET / HTTP/1.1\nHost: t\n\n", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999\r\n\r\n"}) {
      RawHttpClient c(port);
      c.send(req);
      RawResponse r = c.read_response();
      out.emplace_back(r, c.closed_by_server());
    }
    return out;
  });
  CHECK(got[0].first.status == 400);
  CHECK(got[1].first.status == 400);
  CHECK(got[2].first.status == 413);
  for (auto& [r, closed] : got) {
    CHECK(r.has("Connection: close\r\n"));
    CHECK(closed);
  }
}

TEST_CASE("a head that trickles in is cut at head_timeout with 408; an idle connection at idle_timeout") {
  duet::http::HttpServerOptions options;
  options.head_timeout = 150ms;
  options.idle_timeout = 150ms;
  HttpServer server(options);
  server.get("/", hello);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient slow(port);
    slow.send("GET / HTTP/1.1\r\n");
    for (int i = 0; i < 4; ++i) {  // one header byte every 60 ms: never a whole head in time
      std::this_thread::sleep_for(60ms);
      try {
        slow.send("X");
      } catch (const std::runtime_error&) {
        break;  // already closed
      }
    }
    const std::string answer = slow.read_until_close();
    RawHttpClient idle(port);
    idle.send(get_root);
    (void)idle.read_response();
    const auto t0 = std::chrono::steady_clock::now();
    const bool closed = idle.closed_by_server();
    return std::make_tuple(answer, closed, std::chrono::steady_clock::now() - t0);
  });
  CHECK(std::get<0>(got).rfind("HTTP/1.1 408 ", 0) == 0);
  CHECK(std::get<1>(got));
  CHECK(std::get<2>(got) < 3s);
}

TEST_CASE("a client that never reads is closed at send_timeout") {
  duet::http::HttpServerOptions options;
  options.send_timeout = 200ms;
  HttpServer server(options);
  server.get("/endless", endless);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port, 5s, 4096);
    c.send("GET /endless HTTP/1.1\r\nHost: t\r\n\r\n");
    std::this_thread::sleep_for(600ms);  // never reading meanwhile
    return c.read_until_close().size();
  });
  CHECK(got < (64u << 20));  // cut short: the server gave up on it and closed
}

TEST_CASE("a handler that throws gets 500 and the connection closes") {
  HttpServer server;
  server.get("/", throws);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    c.send(get_root);
    RawResponse r = c.read_response();
    return std::make_pair(r, c.closed_by_server());
  });
  CHECK(got.first.status == 500);
  CHECK(got.second);
}

namespace {

std::stop_source* slow_stop = nullptr;
EventLoop* slow_loop = nullptr;

// Asks the server to stop, then takes a while: the answer must still arrive.
Task<Response> stop_then_answer(Request&) {
  slow_stop->request_stop();
  co_await duet::sleep_for(*slow_loop, 100ms);
  co_return Response::text(200, "finished");
}

}  // namespace

TEST_CASE("a graceful stop closes idle connections and finishes the request in progress") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  std::stop_source stop;
  slow_stop = &stop;
  slow_loop = &loop;
  HttpServer server;
  server.get("/slow", stop_then_answer);
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  const std::uint16_t port = listener.local_address().port();
  duet::test::ClientThread<std::tuple<bool, RawResponse, bool>> client([port] {
    RawHttpClient idle(port);
    idle.send(get_root);  // 404, then idle
    (void)idle.read_response();
    RawHttpClient busy(port);
    busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
    RawResponse r = busy.read_response();
    return std::make_tuple(idle.closed_by_server(), r, busy.closed_by_server());
  });
  duet::run_until_complete(loop, server.serve(listener, stop.get_token()));  // returns once all ended
  auto [idle_closed, answer, busy_closed] = client.result();
  CHECK(idle_closed);
  CHECK(answer.body == "finished");
  CHECK(answer.has("Connection: close\r\n"));
  CHECK(busy_closed);
  CHECK(loop.in_flight() == 0);
}

namespace {

Task<void> serve_tls_until(EventLoop& loop, HttpServer& server, duet::TcpListener& listener,
                           const duet::TlsContext& tls, duet::test::ClientThread<std::string>& client,
                           std::stop_source& stop) {
  auto watch = [](EventLoop& l, duet::test::ClientThread<std::string>& c, std::stop_source& s) -> Task<void> {
    while (!c.done()) co_await duet::sleep_for(l, 2ms);
    s.request_stop();
  };
  co_await duet::when_all(server.serve(listener, tls, stop.get_token()), watch(loop, client, stop));
}

}  // namespace

TEST_CASE("over TLS the server handshakes with ALPN http/1.1 and answers curl, keeping the connection") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const auto& certs = duet::test::tls_certs();
  duet::TlsOptions options = certs.server();
  options.alpn = {"http/1.1"};
  const duet::TlsContext tls(options);
  EventLoop loop(backend);
  HttpServer server;
  server.get("/", hello);
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  const std::uint16_t port = listener.local_address().port();
  const std::string ca = certs.file("ca.crt");
  duet::test::ClientThread<std::string> client([port, ca] { return duet::test::curl_https_twice(port, ca); });
  std::stop_source stop;
  duet::run_until_complete(loop, serve_tls_until(loop, server, listener, tls, client, stop));
  // curl offered h2 and http/1.1: the server chose http/1.1 and kept the connection (num_connects 0).
  CHECK(client.result() == "hello 200 1\nhello 200 0\nALPN http/1.1 rc=0\n");
}
