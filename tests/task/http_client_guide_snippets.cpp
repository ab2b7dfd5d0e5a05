// docs/GUIDE.md, "HTTP and WebSocket in both voices", the stackless client's,
// TLS's, WebSocket's and the GCC 12.2 pitfalls' blocks (guide:begin/end,
// checked by tests/io/check_guide.py). Each runs on both backends with a
// duet::HttpServer (or a WebSocket echo) on the same loop.
#include <catch2/catch.hpp>

#include <chrono>
#include <stop_token>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/http_client.hpp"
#include "duet/task/http_server.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/websocket.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/when_any.hpp"
#include "duet/tls/tls_context.hpp"
#include "duet/tls/tls_error.hpp"
#include "tls/tls_certs.hpp"

using namespace std::chrono_literals;

namespace {

// guide:begin http_client_basics
// PUT then GET, each bounded by a deadline; the GET reuses the PUT's connection.
duet::Task<std::string> put_then_get(duet::HttpClient& client, std::string base) {  // "http://127.0.0.1:8080"
  duet::http::RequestOptions options;
  options.timeout = 2s;  // the whole request: resolve, connect, send, the full response
  std::vector<duet::http::OwnedField> headers{{"Content-Type", "text/plain"}};
  auto put = co_await client.request("PUT", base + "/kv/apple", std::move(headers), "red", options);
  if (!put) co_return put.error().message();  // timed_out, connection_refused, bad_message, ...
  if (put->status != 204) co_return "PUT answered " + std::to_string(put->status);
  auto got = co_await client.get(base + "/kv/apple", options);
  if (!got) co_return got.error().message();
  co_return got->body + " as " + std::string(got->find("content-type"));  // find: case-insensitive
}
// guide:end

// guide:begin http_client_fan_out
// Three requests at once, each on a connection of its own; results in order.
duet::Task<std::vector<int>> fan_out(duet::HttpClient& client, std::string base) {
  auto [a, b, c] = co_await duet::when_all(client.get(base + "/kv/apple"), client.get(base + "/kv/pear"),
                                           client.post(base + "/upload", "one\ntwo\n", "text/plain"));
  co_return std::vector<int>{a ? a->status : 0, b ? b->status : 0, c ? c->status : 0};
}

// The first answer wins; the other request is cancelled and its connection closed.
duet::Task<std::string> first_answer(duet::HttpClient& client, std::string url1, std::string url2) {
  std::stop_source stop;
  duet::http::RequestOptions options;
  options.stop = stop.get_token();  // when_any stops the loser through it
  auto first = co_await duet::when_any(stop, client.get(url1, options), client.get(url2, options));
  auto& r = first.index() == 0 ? std::get<0>(first) : std::get<1>(first);
  co_return r ? r->body : r.error().message();
}
// guide:end

// guide:begin http_tls
// The server's context: certificate, key, and ALPN "http/1.1" (a client that
// negotiates another protocol is closed). Then: server.serve(listener, tls, stop).
duet::TlsContext make_https_context(const std::string& cert, const std::string& key) {
  duet::TlsOptions o;
  o.role = duet::TlsRole::server;
  o.cert_chain_file = cert;
  o.key_file = key;
  o.verify = duet::TlsVerify::none;  // no client certificates (the default, peer, requires them)
  o.alpn = {"http/1.1"};
  return duet::TlsContext(o);
}

// A client trusting one CA (an empty ca_file: the system's store). The URL's
// host must be named in the server's certificate.
duet::Task<std::string> fetch_https(duet::EventLoop& loop, std::string url, std::string ca_file) {
  duet::TlsOptions o;  // role client, verify peer
  o.ca_file = std::move(ca_file);
  o.alpn = {"http/1.1"};
  const duet::TlsContext tls(o);
  duet::http::ClientOptions options;
  options.tls = &tls;  // must outlive the client
  duet::HttpClient client(loop, options);
  auto r = co_await client.get(std::move(url));
  if (!r) co_return r.error().message();  // tls_errc::certificate_verify_failed, hostname_mismatch, ...
  co_return r->body;
}
// guide:end

// guide:begin ws_server
// One connection: echoes every message until the client closes.
duet::Task<void> ws_echo(duet::TcpStream conn, std::stop_token stop) {
  duet::WsOptions options;
  options.session.max_message_size = 64 * 1024;  // larger: close 1009, receive fails with message_size
  options.session.deflate.enabled = true;        // accept permessage-deflate when the client offers it
  auto ws = co_await duet::ws_accept(std::move(conn), options, stop);
  if (!ws) co_return;  // not an upgrade (400/426 sent), timed out or stopped: the stream is closed
  for (;;) {
    auto m = co_await ws->receive(5min, stop);  // pings are answered on the way
    if (!m) break;  // eof (ws->close_code() says how), timed_out, canceled, protocol_error, message_size
    duet::IoResult<void> sent;
    if (m->is_text()) sent = co_await ws->send_text(m->data());
    else sent = co_await ws->send_binary(m->payload);
    if (!sent) co_return;
  }
  if (ws->state() == duet::WsState::open) {  // we stop, or the client went quiet: say why
    auto closed = co_await ws->close(1001, "going away");  // waits close_timeout for the client's close
    (void)closed;
  }
}
// guide:end

// guide:begin ws_client
// Connects, upgrades, sends one message, reads its echo, closes with 1000.
duet::Task<std::string> ws_hello(duet::EventLoop& loop, duet::SocketAddress server) {
  auto conn = co_await duet::TcpStream::connect(loop, server);
  if (!conn) co_return conn.error().message();
  duet::WsOptions options;
  options.session.deflate.enabled = true;  // offer permessage-deflate
  auto ws = co_await duet::ws_connect(std::move(*conn), "127.0.0.1", "/echo", options);
  if (!ws) co_return ws.error().message();  // refused, not a 101, or a bad Sec-WebSocket-Accept
  auto sent = co_await ws->send_text("hello, websocket");
  if (!sent) co_return sent.error().message();
  auto echo = co_await ws->receive(5s);
  std::string answer = echo ? std::string(echo->data()) : echo.error().message();  // copy: a view
  auto closed = co_await ws->close(1000, "bye");  // ours, then theirs, then the server's EOF
  (void)closed;
  co_return answer + (ws->deflate() ? " (deflated)" : "");
}
// guide:end

using duet::Backend;
using duet::EventLoop;
using duet::HttpServer;
using duet::Task;
using duet::http::Request;
using duet::http::Response;

const duet::SocketAddress loopback = duet::SocketAddress::parse("127.0.0.1", 0).value();

Task<Response> kv_get(Request& req) {
  if (req.param("key") == "apple") co_return Response::text(200, "red", "application/octet-stream");
  co_return Response::text(404, "no such key\n");
}
Task<Response> kv_put(Request& req) { co_return Response::empty(req.body() == "red" ? 204 : 400); }
Task<Response> echo_body(Request& req) { co_return Response::text(200, std::string(req.body())); }
Task<Response> slow(Request& req, EventLoop& loop) {  // until the server stops, when "slow" is asked for
  if (req.query() == "slow") {
    bool slept = co_await duet::sleep_for(loop, 10s, req.stop_token());
    (void)slept;
  }
  co_return Response::text(200, req.query().empty() ? "quick" : std::string(req.query()));
}

void add_routes(HttpServer& server, EventLoop& loop) {
  server.get("/kv/{key}", kv_get).put("/kv/{key}", kv_put).post("/upload", echo_body);
  server.get("/race", [&loop](Request& req) { return slow(req, loop); });
}

Task<void> then_stop(Task<void> client, std::stop_source& stop) {
  co_await std::move(client);
  stop.request_stop();
}

// Runs client against server on one loop, each backend; the server stops when the client is done.
template <typename Body>
void with_local_server(Body body) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  HttpServer server;
  add_routes(server, loop);
  auto listener = duet::TcpListener::bind(loop, loopback);
  const std::string base = "http://127.0.0.1:" + std::to_string(listener.local_address().port());
  {
    duet::HttpClient client(loop);
    std::stop_source stop;
    duet::run_until_complete(loop, duet::when_all(server.serve(listener, stop.get_token()),
                                                  then_stop(body(loop, client, base), stop)));
  }
  loop.run_once(std::chrono::steady_clock::now());  // the pooled sockets' closes
  CHECK(loop.in_flight() == 0);
}

Task<void> basics(EventLoop&, duet::HttpClient& client, std::string base) {
  std::string answer = co_await put_then_get(client, base);
  CHECK(answer == "red as application/octet-stream");
  CHECK(client.idle_connections() == 1);  // one connection, kept alive for both requests
}

Task<void> fan_out_and_race(EventLoop&, duet::HttpClient& client, std::string base) {
  std::vector<int> statuses = co_await fan_out(client, base);
  CHECK(statuses == std::vector<int>{200, 404, 200});
  CHECK(client.idle_connections() == 3);
  const auto start = std::chrono::steady_clock::now();
  std::string winner = co_await first_answer(client, base + "/race?slow", base + "/race");
  CHECK(winner == "quick");
  CHECK(std::chrono::steady_clock::now() - start < 5s);  // the slow one was cancelled, not waited for
}

Task<void> pitfalls(EventLoop&, duet::HttpClient& client, std::string base) {
  std::stop_source source;
  const bool stoppable = true;
  const std::string url = base + "/kv/apple";
  // guide:begin gcc_named
  duet::http::RequestOptions options;  // not a braced {.stop = ...} inside the co_await
  options.stop = stoppable ? source.get_token() : std::stop_token();  // nor a conditional inside it
  auto r = co_await client.get(url, options);  // the result named ...
  REQUIRE(r);                                  // ... then asserted: not REQUIRE(co_await client.get(url))
  // guide:end
  CHECK(r->body == "red");
}

}  // namespace

TEST_CASE("the GUIDE's client PUTs then GETs on one kept-alive connection", "[http][guide]") {
  with_local_server(basics);
}

TEST_CASE("the GUIDE's fan-out runs three requests at once and the race keeps the first answer", "[http][guide]") {
  with_local_server(fan_out_and_race);
}

TEST_CASE("the GUIDE's named options and results work where temporaries in co_await do not", "[http][guide]") {
  with_local_server(pitfalls);
}

namespace {

Task<Response> hello_tls(Request&) { co_return Response::text(200, "hello over TLS"); }

Task<void> fetch_both(EventLoop& loop, std::string url, std::string ca, std::string& trusted, std::string& untrusted) {
  trusted = co_await fetch_https(loop, url, ca);
  untrusted = co_await fetch_https(loop, url, "");  // the system's store does not know the test CA
}

}  // namespace

TEST_CASE("the GUIDE's https server and client: ALPN http/1.1, the CA and the host checked", "[http][guide][tls]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const auto& certs = duet::test::tls_certs();
  const duet::TlsContext tls = make_https_context(certs.file("server.crt"), certs.file("server.key"));
  EventLoop loop(backend);
  HttpServer server;
  server.get("/", hello_tls);
  auto listener = duet::TcpListener::bind(loop, loopback);
  const std::string url = "https://127.0.0.1:" + std::to_string(listener.local_address().port()) + "/";
  std::string trusted, untrusted;
  std::stop_source stop;
  duet::run_until_complete(loop, duet::when_all(server.serve(listener, tls, stop.get_token()),
                                                then_stop(fetch_both(loop, url, certs.file("ca.crt"), trusted, untrusted), stop)));
  CHECK(trusted == "hello over TLS");
  CHECK(untrusted == std::error_code(duet::tls_errc::certificate_verify_failed).message());
  loop.run_once(std::chrono::steady_clock::now());
  CHECK(loop.in_flight() == 0);
}

namespace {

Task<void> accept_one(duet::TcpListener& listener) {
  auto conn = co_await listener.accept();
  REQUIRE(conn);
  co_await ws_echo(std::move(*conn), std::stop_token());
}

// Sends more than the server's max_message_size: the server closes with 1009.
Task<std::uint16_t> too_big(EventLoop& loop, duet::SocketAddress server) {
  auto conn = co_await duet::TcpStream::connect(loop, server);
  REQUIRE(conn);
  auto ws = co_await duet::ws_connect(std::move(*conn), "127.0.0.1", "/echo");
  REQUIRE(ws);
  const std::string big(70 * 1024, 'x');
  auto sent = co_await ws->send_binary(big);
  CHECK(sent);
  auto m = co_await ws->receive(5s);
  CHECK(m.error() == duet::io_errc::eof);
  co_return ws->close_code();
}

}  // namespace

TEST_CASE("the GUIDE's WebSocket echo answers a deflated message and refuses one past its limit with 1009",
          "[http][guide][websocket]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  auto listener = duet::TcpListener::bind(loop, loopback);
  const duet::SocketAddress addr = listener.local_address();
  auto [nothing, answer] = duet::run_until_complete(loop, duet::when_all(accept_one(listener), ws_hello(loop, addr)));
  (void)nothing;
  CHECK(answer == "hello, websocket (deflated)");
  auto [ignored, code] = duet::run_until_complete(loop, duet::when_all(accept_one(listener), too_big(loop, addr)));
  (void)ignored;
  CHECK(code == 1009);
  CHECK(loop.in_flight() == 0);
}
