// docs/GUIDE.md, "HTTP and WebSocket in both voices", the stackless server's
// blocks: each ```cpp block there is a guide:begin/end snippet here
// (tests/io/check_guide.py keeps them equal), and each runs on both backends
// against a raw client on a thread of its own (support/http_raw_client.hpp).
// The client's and WebSocket's blocks: http_client_guide_snippets.cpp.
#include <catch2/catch.hpp>

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <map>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/runtime/shard_set.hpp"
#include "duet/task/http_server.hpp"
#include "duet/task/on_shard.hpp"
#include "duet/task/run.hpp"
#include "duet/task/signal_set.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/when_any.hpp"
#include "support/client_thread.hpp"
#include "support/http_raw_client.hpp"
#include "support/http_server_harness.hpp"

using namespace std::chrono_literals;

namespace {

// guide:begin http_hello
duet::Task<duet::http::Response> hello(duet::http::Request& req) {
  std::string who(req.query().empty() ? "world" : req.query());  // "/?duet" -> "duet"
  co_return duet::http::Response::text(200, "hello, " + who + "\n");
}

// Serves until SIGINT or SIGTERM, then stops: no new connections, idle ones
// closed, a request in progress answered (with Connection: close).
duet::Task<void> serve_hello(duet::TcpListener& listener, duet::SignalSet& signals) {
  duet::HttpServer server;  // routes first, then serve
  server.get("/", hello);
  std::stop_source stop;  // when_any requests it when either child ends
  co_await duet::when_any(stop, server.serve(listener, stop.get_token()), signals.wait_task(stop.get_token()));
}
// guide:end

// guide:begin http_routes
// A key-value store over HTTP, in memory: PUT /kv/{key} stores the body, GET
// answers it (or 404), DELETE removes it; GET /static/* names a file.
class KvRoutes {
 public:
  void add_to(duet::HttpServer& server) {
    server.get("/kv/{key}", [this](duet::http::Request& req) { return get(req); });
    server.put("/kv/{key}", [this](duet::http::Request& req) { return put(req); });
    server.del("/kv/{key}", [this](duet::http::Request& req) { return del(req); });
    server.get("/static/*", file);
  }

 private:
  using Response = duet::http::Response;

  duet::Task<Response> get(duet::http::Request& req) {
    auto key = duet::http::percent_decode(req.param("key"));  // "a%20b" -> "a b"; nullopt: a bad escape
    if (!key) co_return Response::text(400, "bad key\n");
    auto it = store_.find(*key);
    if (it == store_.end()) co_return Response::text(404, "no such key\n");
    co_return Response::text(200, it->second, "application/octet-stream");
  }
  duet::Task<Response> put(duet::http::Request& req) {
    auto key = duet::http::percent_decode(req.param("key"));
    if (!key) co_return Response::text(400, "bad key\n");
    store_[*key] = std::string(req.body());  // a view into the connection's buffer: copy it
    co_return Response::empty(204);
  }
  duet::Task<Response> del(duet::http::Request& req) {
    auto key = duet::http::percent_decode(req.param("key"));
    if (!key) co_return Response::text(400, "bad key\n");
    co_return Response::empty(store_.erase(*key) == 1 ? 204 : 404);
  }
  static duet::Task<Response> file(duet::http::Request& req) {
    co_return Response::text(200, "the file " + std::string(req.param("*")) + "\n");  // "css/site.css"
  }

  std::map<std::string, std::string, std::less<>> store_;
};
// guide:end

// guide:begin http_streams
// POST /upload, added with BodyMode::stream: the body is read as it arrives
// (de-chunked), never held whole.
duet::Task<duet::http::Response> upload(duet::http::Request& req) {
  duet::HttpBodyReader body(req);
  std::size_t bytes = 0, lines = 0;
  for (;;) {
    auto piece = co_await body.read();  // a view, valid until the next read
    if (!piece) co_return duet::http::Response::text(400, piece.error().message() + "\n");
    if (piece->empty()) break;  // the end of the body
    bytes += piece->size();
    lines += static_cast<std::size_t>(std::count(piece->begin(), piece->end(), '\n'));
  }
  co_return duet::http::Response::text(200, std::to_string(bytes) + " bytes, " + std::to_string(lines) + " lines\n");
}

// GET /countdown: ten lines, one every 10 ms, each sent as a chunk when written.
duet::Task<duet::http::Response> countdown(duet::http::Request& req, duet::EventLoop& loop) {
  duet::HttpResponseStream out(req);
  duet::HttpResponseStream::Headers headers{{"Content-Type", "text/plain"}};  // named: see the GCC 12.2 pitfalls
  auto started = co_await out.start(200, std::move(headers));
  for (int i = 10; started && i > 0; --i) {
    std::string line = std::to_string(i) + "\n";
    auto wrote = co_await out.write(line);
    if (!wrote) co_return duet::http::Response::streamed();  // the client is gone (or send_timeout)
    bool slept = co_await duet::sleep_for(loop, 10ms, req.stop_token());
    if (!slept) break;  // the server is stopping: end the stream early
  }
  auto finished = co_await out.finish();  // the last, empty chunk
  (void)finished;
  co_return duet::http::Response::streamed();  // sent already: the server adds nothing
}
// guide:end

// guide:begin http_limits
duet::http::HttpServerOptions guarded_options() {
  duet::http::HttpServerOptions o;
  o.limits.max_body = 64 * 1024;       // decoded body bytes, whole or streamed: 413
  o.limits.max_head_bytes = 8 * 1024;  // request line and fields: 431
  o.limits.max_headers = 50;           // 431
  o.head_timeout = 5s;                 // a request's first byte to the end of its head: 408
  o.body_timeout = 20s;                // the head to the body's last byte: 408
  o.idle_timeout = 30s;                // a kept-alive connection between requests: closed, no answer
  o.send_timeout = 10s;                // one response, or one piece of a stream: closed
  o.output_limit = 64 * 1024;          // answers to pipelined requests gathered into one send up to this
  return o;                            // the server refuses a zero timeout (std::invalid_argument)
}
// guide:end

// guide:begin http_sharded
// One HttpServer for every shard: it is only read once serving starts, so its
// handlers must be safe on every shard's thread.
void serve_on_shards(duet::HttpServer& server, duet::ConnectionSpreader& spreader, duet::ShardSet& set) {
  for (std::size_t i = 0; i < set.size(); ++i) {
    duet::spawn_on(set.shard(i), [&] {
      return duet::serve_shard(spreader, [&server](duet::TcpStream conn, std::stop_token stop) {
        return server.serve_connection(std::move(conn), std::move(stop));
      });
    });
  }
}
// guide:end

using duet::Backend;
using duet::EventLoop;
using duet::HttpServer;
using duet::Task;
using duet::test::RawHttpClient;
using duet::test::RawResponse;

const duet::SocketAddress loopback = duet::SocketAddress::parse("127.0.0.1", 0).value();

RawResponse ask(RawHttpClient& c, const std::string& request, bool no_body = false) {
  c.send(request);
  return c.read_response(no_body);
}

}  // namespace

TEST_CASE("the GUIDE's hello server answers until a SIGTERM stops it", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const duet::SocketAddress address = loopback;
  const pthread_t server_thread = ::pthread_self();
  // guide:begin http_hello_main
  duet::EventLoop loop(backend);
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});  // before any thread starts: threads inherit the mask
  auto listener = duet::TcpListener::bind(loop, address);
  // guide:end
  const std::uint16_t bound = listener.local_address().port();
  duet::test::ClientThread<std::pair<RawResponse, RawResponse>> client([bound, server_thread] {
    RawHttpClient c(bound);
    RawResponse named = ask(c, "GET /?duet HTTP/1.1\r\nHost: t\r\n\r\n");
    RawResponse plain = ask(c, "GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    ::pthread_kill(server_thread, SIGTERM);  // to the loop's thread, which blocks it: read by the set
    if (!c.closed_by_server()) throw std::runtime_error("the idle connection was not closed at the stop");
    return std::make_pair(named, plain);
  });
  duet::run_until_complete(loop, serve_hello(listener, signals));
  auto [named, plain] = client.result();
  CHECK(named.body == "hello, duet\n");
  CHECK(plain.body == "hello, world\n");
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("the GUIDE's routes store, answer, 404, 405 with Allow, and HEAD takes GET", "[http][guide]") {
  HttpServer server;
  KvRoutes kv;
  kv.add_to(server);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    RawHttpClient c(port);
    std::vector<RawResponse> out;
    out.push_back(ask(c, "PUT /kv/a%20b HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nred"));
    out.push_back(ask(c, "GET /kv/a%20b HTTP/1.1\r\nHost: t\r\n\r\n"));
    out.push_back(ask(c, "HEAD /kv/a%20b HTTP/1.1\r\nHost: t\r\n\r\n", true));
    out.push_back(ask(c, "POST /kv/a%20b HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"));
    out.push_back(ask(c, "DELETE /kv/a%20b HTTP/1.1\r\nHost: t\r\n\r\n"));
    out.push_back(ask(c, "GET /kv/a%20b HTTP/1.1\r\nHost: t\r\n\r\n"));
    out.push_back(ask(c, "GET /static/css/site.css HTTP/1.1\r\nHost: t\r\n\r\n"));
    out.push_back(ask(c, "GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n"));
    out.push_back(ask(c, "GET /kv/%zz HTTP/1.1\r\nHost: t\r\n\r\n"));
    return out;
  });
  CHECK(got[0].status == 204);
  CHECK(got[1].body == "red");
  CHECK(got[2].status == 200);
  CHECK(got[2].has("Content-Length: 3\r\n"));
  CHECK(got[3].status == 405);
  CHECK(got[3].has("Allow: GET, HEAD, PUT, DELETE\r\n"));
  CHECK(got[4].status == 204);
  CHECK(got[5].status == 404);
  CHECK(got[6].body == "the file css/site.css\n");
  CHECK(got[7].status == 404);
  CHECK(got[8].status == 400);
}

TEST_CASE("the GUIDE's streamed upload is counted in pieces and its countdown arrives chunked", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  HttpServer server;
  server.route("POST", "/upload", upload, duet::http::BodyMode::stream);
  server.get("/countdown", [&loop](duet::http::Request& req) { return countdown(req, loop); });
  auto listener = duet::TcpListener::bind(loop, loopback);
  const std::uint16_t port = listener.local_address().port();
  duet::test::ClientThread<std::pair<RawResponse, RawResponse>> client([port] {
    RawHttpClient c(port);
    c.send("POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\none\n\r\n");
    std::this_thread::sleep_for(20ms);  // the rest later: the handler has read the first piece
    c.send("7\r\ntwo\nsix\r\n0\r\n\r\n");
    RawResponse counted = c.read_response();
    return std::make_pair(counted, ask(c, "GET /countdown HTTP/1.1\r\nHost: t\r\n\r\n"));
  });
  std::stop_source stop;
  duet::run_until_complete(
      loop, duet::when_all(server.serve(listener, stop.get_token()), duet::test::stop_when_done(loop, client, stop)));
  auto [counted, ticks] = client.result();
  CHECK(counted.body == "11 bytes, 2 lines\n");
  CHECK(ticks.has("Transfer-Encoding: chunked\r\n"));
  CHECK(ticks.body == "10\n9\n8\n7\n6\n5\n4\n3\n2\n1\n");
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("the GUIDE's limits answer 413, 431, 400 for smuggling and 408 for a slow head, then close",
          "[http][guide]") {
  duet::http::HttpServerOptions options = guarded_options();
  options.head_timeout = 200ms;  // the test's patience, not the GUIDE's
  HttpServer server(options);
  server.post("/upload", upload);
  auto got = duet::test::with_http_server(server, [](std::uint16_t port) {
    std::vector<std::pair<int, bool>> out;  // status, closed after it
    const std::string big_head = "GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(9000, 'x') + "\r\n\r\n";
    for (const std::string& req :
         {std::string("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n"), big_head,
          std::string("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
          std::string("GET / HTTP/1.1\r\nHost: t\r\n")}) {  // never ends its head
      RawHttpClient c(port);
      RawResponse r = ask(c, req);
      out.emplace_back(r.status, r.has("Connection: close\r\n") && c.closed_by_server());
    }
    return out;
  });
  REQUIRE(got.size() == 4);
  CHECK(got[0] == std::make_pair(413, true));
  CHECK(got[1] == std::make_pair(431, true));
  CHECK(got[2] == std::make_pair(400, true));
  CHECK(got[3] == std::make_pair(408, true));
}

TEST_CASE("the GUIDE's sharded server answers on two shards and stops with the set", "[http][guide]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  HttpServer server;
  server.get("/", hello);
  duet::ConnectionSpreader spreader(2, loopback);
  duet::ShardSet set({.shards = 2, .backend = backend});
  serve_on_shards(server, spreader, set);
  for (int i = 0; i < 6; ++i) {
    RawHttpClient c(spreader.port());
    CHECK(ask(c, "GET /?shard HTTP/1.1\r\nHost: t\r\n\r\n").body == "hello, shard\n");
  }
  set.stop();  // every shard's token: accepting ends, connections close
  CHECK(spreader.connections(0) + spreader.connections(1) == 6);
}
