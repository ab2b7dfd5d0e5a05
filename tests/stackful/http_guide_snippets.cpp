// docs/GUIDE.md, "HTTP and WebSocket in both voices", the fiber voice's
// blocks: each ```c++ block there is a guide:begin/end snippet here
// (tests/stackful/check_guide_stackful.py keeps them equal), and each runs on
// both backends, against a raw client on a thread (support/http_raw_client.hpp)
// or the snippets' own clients.
#include <catch2/catch.hpp>

#include <pthread.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "duet/runtime/connection_spreader.hpp"
#include "duet/runtime/shard_set.hpp"
#include "duet/stackful/http_client.hpp"
#include "duet/stackful/http_server.hpp"
#include "duet/stackful/on_shard.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/signal_set.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/websocket.hpp"
#include "duet/stackful/when_any.hpp"
#include "support/client_thread.hpp"
#include "support/http_raw_client.hpp"
#include "support/on_fibers.hpp"

using namespace std::chrono_literals;

namespace {

// guide:begin fiber_http_hello
duet::http::Response hello(duet::http::Request& req) {
  std::string who(req.query().empty() ? "world" : req.query());
  return duet::http::Response::text(200, "hello, " + who + "\n");
}

// Serves until SIGINT or SIGTERM, then stops as the stackless server does.
void serve_hello(duet::fiber::TcpListener& listener, duet::fiber::SignalSet& signals) {
  duet::fiber::HttpServer server;
  server.get("/", hello);
  (void)duet::fiber::when_any([&](std::stop_token stop) { server.serve(listener, stop); },
                              [&](std::stop_token stop) { return signals.wait(stop); });
}
// guide:end

// guide:begin fiber_http_streams
// Added with server.route("POST", "/upload", upload, duet::http::BodyMode::stream).
duet::http::Response upload(duet::http::Request& req) {
  duet::fiber::HttpBodyReader body(req);
  std::size_t bytes = 0;
  for (;;) {
    auto piece = body.read();  // blocks this fiber only
    if (!piece) return duet::http::Response::text(400, piece.error().message() + "\n");
    if (piece->empty()) break;
    bytes += piece->size();
  }
  return duet::http::Response::text(200, std::to_string(bytes) + " bytes\n");
}

duet::http::Response countdown(duet::http::Request& req) {
  duet::fiber::HttpResponseStream out(req);
  bool ok = out.start(200, {{"Content-Type", "text/plain"}}).ok();  // no co_await: braces are safe
  for (int i = 3; ok && i > 0; --i) {
    ok = out.write(std::to_string(i) + "\n").ok();
    if (ok && !duet::fiber::sleep_for(10ms, req.stop_token())) break;  // stopping: end early
  }
  if (ok) (void)out.finish();
  return duet::http::Response::streamed();
}
// guide:end

// guide:begin fiber_http_sharded
void serve_on_shards(duet::fiber::HttpServer& server, duet::ConnectionSpreader& spreader, duet::ShardSet& set) {
  for (std::size_t i = 0; i < set.size(); ++i) {
    duet::fiber::spawn_on(set.shard(i), [&] {
      duet::fiber::serve_shard(spreader, [&server](duet::fiber::TcpStream conn, std::stop_token stop) {
        server.serve_connection(std::move(conn), std::move(stop));
      });
    });
  }
}
// guide:end

// guide:begin fiber_http_client
// Two requests at once, a fiber each; join() gives each result.
std::pair<int, std::string> get_and_post(duet::fiber::HttpClient& client, const std::string& base) {
  auto get = duet::fiber::spawn([&] { return client.get(base + "/?fibers", {.timeout = 2s}); });
  auto post = duet::fiber::spawn([&] { return client.post(base + "/upload", "one\ntwo\n", "text/plain"); });
  auto got = get.join();
  auto posted = post.join();
  return {got ? got->status : 0, posted ? posted->body : posted.error().message()};
}

// The first answer wins; when_any stops the other request and joins its fiber.
std::string first_answer(duet::fiber::HttpClient& client, const std::string& url1, const std::string& url2) {
  auto first = duet::fiber::when_any([&](std::stop_token stop) { return client.get(url1, {.stop = stop}); },
                                     [&](std::stop_token stop) { return client.get(url2, {.stop = stop}); });
  auto& r = first.index() == 0 ? std::get<0>(first) : std::get<1>(first);
  return r ? r->body : r.error().message();
}
// guide:end

// guide:begin fiber_ws
void ws_echo(duet::fiber::TcpStream conn, std::stop_token stop) {
  duet::WsOptions options;
  options.session.deflate.enabled = true;
  auto ws = duet::fiber::ws_accept(std::move(conn), options, stop);
  if (!ws) return;
  while (auto m = ws->receive(5min, stop)) {
    auto sent = m->is_text() ? ws->send_text(m->data()) : ws->send_binary(m->payload);
    if (!sent) return;
  }
  if (ws->state() == duet::WsState::open) (void)ws->close(1001, "going away");
}

std::string ws_hello(duet::SocketAddress server) {
  auto conn = duet::fiber::TcpStream::connect(server);
  if (!conn) return conn.error().message();
  auto ws = duet::fiber::ws_connect(std::move(*conn), "127.0.0.1", "/echo");
  if (!ws) return ws.error().message();
  auto sent = ws->send_text("hello, websocket");
  if (!sent) return sent.error().message();
  auto echo = ws->receive(5s);
  std::string answer = echo ? std::string(echo->data()) : echo.error().message();
  (void)ws->close(1000, "bye");
  return answer;
}
// guide:end

using duet::Backend;
using duet::fiber::HttpServer;
using duet::test::RawHttpClient;
using duet::test::RawResponse;

const duet::SocketAddress loopback = duet::SocketAddress::parse("127.0.0.1", 0).value();

RawResponse ask(RawHttpClient& c, const std::string& request) {
  c.send(request);
  return c.read_response();
}

duet::http::Response slow(duet::http::Request& req) {  // until the server stops, when "slow" is asked for
  if (req.query() == "slow") (void)duet::fiber::sleep_for(10s, req.stop_token());
  return duet::http::Response::text(200, req.query().empty() ? "quick" : std::string(req.query()));
}

}  // namespace

TEST_CASE("the GUIDE's fiber hello server answers until a SIGTERM stops it", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const duet::SocketAddress address = loopback;
  const pthread_t server_thread = ::pthread_self();
  // guide:begin fiber_http_hello_main
  duet::fiber::Scheduler scheduler({.backend = backend});
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});  // before any thread starts: threads inherit the mask
  auto listener = duet::fiber::TcpListener::bind(address);
  // guide:end
  const std::uint16_t port = listener.local_address().port();
  duet::test::ClientThread<RawResponse> client([port, server_thread] {
    RawHttpClient c(port);
    RawResponse r = ask(c, "GET /?fibers HTTP/1.1\r\nHost: t\r\n\r\n");
    ::pthread_kill(server_thread, SIGTERM);  // to the scheduler's thread, which blocks it
    if (!c.closed_by_server()) throw std::runtime_error("the idle connection was not closed at the stop");
    return r;
  });
  scheduler.spawn(serve_hello, std::ref(listener), std::ref(signals)).join();
  scheduler.run();
  CHECK(client.result().body == "hello, fibers\n");
  CHECK(scheduler.loop().in_flight() == 0);
}

TEST_CASE("the GUIDE's fiber upload is counted in pieces and its countdown arrives chunked", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  HttpServer server;
  server.route("POST", "/upload", upload, duet::http::BodyMode::stream);
  server.get("/countdown", countdown);
  auto got = duet::test::on_fibers(backend, [&server] {
    auto listener = duet::fiber::TcpListener::bind(loopback);
    const std::uint16_t port = listener.local_address().port();
    duet::test::ClientThread<std::pair<RawResponse, RawResponse>> thread([port] {
      RawHttpClient c(port);
      c.send("POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\none\n\r\n");
      std::this_thread::sleep_for(20ms);
      c.send("7\r\ntwo\nsix\r\n0\r\n\r\n");
      RawResponse counted = c.read_response();
      return std::make_pair(counted, ask(c, "GET /countdown HTTP/1.1\r\nHost: t\r\n\r\n"));
    });
    std::stop_source stop;
    auto watch = duet::fiber::spawn([&thread, &stop] {
      while (!thread.done()) duet::fiber::sleep_for(2ms);
      stop.request_stop();
    });
    server.serve(listener, stop.get_token());
    watch.join();
    return thread.result();
  });
  CHECK(got.first.body == "11 bytes\n");
  CHECK(got.second.has("Transfer-Encoding: chunked\r\n"));
  CHECK(got.second.body == "3\n2\n1\n");
}

TEST_CASE("the GUIDE's fiber client runs two requests at once and the race keeps the first answer", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  HttpServer server;
  server.get("/", hello).route("POST", "/upload", upload, duet::http::BodyMode::stream);
  server.get("/race", slow);
  auto got = duet::test::on_fibers(backend, [&server] {
    auto listener = duet::fiber::TcpListener::bind(loopback);
    const std::string base = "http://127.0.0.1:" + std::to_string(listener.local_address().port());
    std::stop_source stop;
    auto serving = duet::fiber::spawn([&] { server.serve(listener, stop.get_token()); });
    std::pair<int, std::string> both;
    std::string winner;
    {
      duet::fiber::HttpClient client;
      both = get_and_post(client, base);
      winner = first_answer(client, base + "/race?slow", base + "/race");
    }
    stop.request_stop();
    serving.join();
    return std::make_tuple(both, winner);
  });
  CHECK(std::get<0>(got) == std::make_pair(200, std::string("8 bytes\n")));
  CHECK(std::get<1>(got) == "quick");
}

TEST_CASE("the GUIDE's fiber sharded server answers on two shards and stops with the set", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  HttpServer server;
  server.get("/", hello);
  duet::ConnectionSpreader spreader(2, loopback);
  duet::ShardSet set({.shards = 2, .backend = backend}, duet::fiber::shard_runner());
  serve_on_shards(server, spreader, set);
  for (int i = 0; i < 6; ++i) {
    RawHttpClient c(spreader.port());
    CHECK(ask(c, "GET /?shard HTTP/1.1\r\nHost: t\r\n\r\n").body == "hello, shard\n");
  }
  set.stop();
  CHECK(spreader.connections(0) + spreader.connections(1) == 6);
}

TEST_CASE("the GUIDE's fiber WebSocket echo answers its client, deflated", "[http][guide][websocket]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  auto answer = duet::test::on_fibers(
      backend,
      [] {
        auto listener = duet::fiber::TcpListener::bind(loopback);
        const duet::SocketAddress addr = listener.local_address();
        auto server = duet::fiber::spawn([&listener] {
          auto conn = listener.accept();
          if (conn) ws_echo(std::move(*conn), std::stop_token());
        });
        std::string got = ws_hello(addr);
        server.join();
        return got;
      },
      256 * 1024);
  CHECK(answer == "hello, websocket");
}
