// duet::HttpClient (task/http_client.hpp) on both backends against a scripted
// server (support/http_test_server.hpp) over 127.0.0.1: each framing of a
// response, keep-alive reuse counted by the server's accepts, the one retry of
// a stale pooled connection, timeouts, stop tokens, fan-out under when_all and
// when_any, refusals; and Python's http.server, a server duet did not write.
#include "duet/task/http_client.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <stop_token>
#include <string>
#include <variant>

#include "duet/io/event_loop.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/when_any.hpp"
#include "duet/tls/tls_context.hpp"
#include "duet/tls/tls_error.hpp"
#include "support/http_test_server.hpp"
#include "support/python_http_server.hpp"
#include "support/refusing_port.hpp"
#include "support/run_bounded.hpp"
#include "tls/tls_certs.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::HttpClient;
using duet::IoResult;
using duet::Task;
using duet::http::ClientResponse;
using duet::test::HttpTestServer;
using namespace std::chrono_literals;

using Body = Task<void> (*)(EventLoop&, HttpClient&, HttpTestServer&);

// run_bounded wants a value.
Task<int> done(Task<void> body) {
  co_await std::move(body);
  co_return 0;
}

void on_each_backend(Body body, duet::http::ClientOptions options = {}) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  HttpTestServer server(backend);
  EventLoop loop(backend);
  {
    HttpClient client(loop, options);
    duet::test::run_bounded(loop, done(body(loop, client, server)), 10s);
  }
  loop.run_once(std::chrono::steady_clock::now());  // the pooled sockets' closes
  CHECK(loop.in_flight() == 0);
}

Task<void> fixed_and_reused(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto first = co_await client.get(server.url("/fixed"));
  REQUIRE(first);
  CHECK(first->status == 200);
  CHECK(first->reason == "OK");
  CHECK(first->body == "hello");
  CHECK(first->find("x-method") == "GET");
  CHECK(client.idle_connections() == 1);
  auto second = co_await client.get(server.url("/fixed"));
  REQUIRE(second);
  CHECK(second->body == "hello");
  CHECK(server.accepts() == 1);  // the second request rode the first one's connection
}

Task<void> chunked_with_trailers(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto r = co_await client.get(server.url("/chunked"));
  REQUIRE(r);
  CHECK(r->body == "hello world");
  REQUIRE(r->trailers.size() == 1);
  CHECK(r->trailers[0].first == "X-Check");
  CHECK(client.idle_connections() == 1);
}

Task<void> close_delimited(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto r = co_await client.get(server.url("/close"));
  REQUIRE(r);
  CHECK(r->body == "until the close");
  CHECK(client.idle_connections() == 0);  // a body ended by the close leaves nothing to reuse
}

Task<void> post_head_and_interim(EventLoop&, HttpClient& client, HttpTestServer& server) {
  std::string big(200'000, 'x');
  for (std::size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  auto echo = co_await client.post(server.url("/echo"), big, "application/octet-stream");
  REQUIRE(echo);
  CHECK(echo->find("X-Method") == "POST");
  CHECK(echo->body == big);
  auto head = co_await client.request("HEAD", server.url("/head-info"));
  REQUIRE(head);
  CHECK(head->find("content-length") == "5");
  CHECK(head->body.empty());
  auto interim = co_await client.get(server.url("/interim"));
  REQUIRE(interim);
  CHECK(interim->status == 200);
  CHECK(interim->body == "after");
  CHECK(server.accepts() == 1);
}

Task<void> stale_connection_retried(EventLoop& loop, HttpClient& client, HttpTestServer& server) {
  auto stale = co_await client.get(server.url("/stale"));  // promises keep-alive, then closes
  REQUIRE(stale);
  CHECK(client.idle_connections() == 1);
  co_await duet::sleep_for(loop, 20ms);  // the server's FIN arrives
  auto again = co_await client.get(server.url("/fixed"));
  REQUIRE(again);
  CHECK(again->body == "hello");
  CHECK(server.accepts() == 2);
  // A POST is not idempotent: on a stale connection it fails instead of being sent twice.
  auto stale2 = co_await client.get(server.url("/stale"));
  REQUIRE(stale2);
  co_await duet::sleep_for(loop, 20ms);
  auto post = co_await client.post(server.url("/echo"), "once", "text/plain");
  CHECK(!post);
  CHECK(server.accepts() == 2);  // the second /stale rode the retry's connection; the POST opened none
}

Task<void> idle_expired(EventLoop& loop, HttpClient& client, HttpTestServer& server) {
  REQUIRE(co_await client.get(server.url("/fixed")));
  co_await duet::sleep_for(loop, 120ms);  // past max_idle_time (50 ms)
  auto r = co_await client.get(server.url("/fixed"));
  REQUIRE(r);
  CHECK(server.accepts() == 2);  // a fresh connection: the idle one was closed, not tried
  CHECK(client.idle_connections() == 1);
}

Task<void> stall_times_out(EventLoop&, HttpClient& client, HttpTestServer& server) {
  duet::http::RequestOptions options;
  options.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = co_await client.get(server.url("/stall"), options);
  CHECK(r.error() == std::errc::timed_out);
  CHECK(std::chrono::steady_clock::now() - start < 2s);
  CHECK(client.idle_connections() == 0);
}

Task<void> stop_after(EventLoop& loop, std::stop_source stop) {
  co_await duet::sleep_for(loop, 50ms);
  stop.request_stop();
}

Task<void> stop_cancels(EventLoop& loop, HttpClient& client, HttpTestServer& server) {
  std::stop_source stop;
  duet::http::RequestOptions options;
  options.stop = stop.get_token();
  auto [r, done] = co_await duet::when_all(client.get(server.url("/stall"), options), stop_after(loop, stop));
  CHECK(r.error() == std::errc::operation_canceled);
}

Task<void> fan_out_when_all(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto [a, b, c] = co_await duet::when_all(client.get(server.url("/slow?30")), client.get(server.url("/fixed")),
                                           client.get(server.url("/chunked")));
  REQUIRE((a && b && c));
  CHECK(a->body == "slow-30");
  CHECK(b->body == "hello");
  CHECK(c->body == "hello world");
  CHECK(server.accepts() == 3);  // three at once: three connections
  CHECK(client.idle_connections() == 3);
}

Task<void> first_when_any(EventLoop&, HttpClient& client, HttpTestServer& server) {
  std::stop_source stop;
  duet::http::RequestOptions options;
  options.stop = stop.get_token();
  const auto start = std::chrono::steady_clock::now();
  auto r = co_await duet::when_any(stop, client.get(server.url("/slow?3000"), options),
                                   client.get(server.url("/slow?20"), options));
  REQUIRE(r.index() == 1);
  REQUIRE(std::get<1>(r));
  CHECK(std::get<1>(r)->body == "slow-20");
  CHECK(std::chrono::steady_clock::now() - start < 2s);  // the slow one was cancelled, not waited for
  CHECK(client.idle_connections() == 1);                 // only the winner's connection is kept
}

Task<void> refusals(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto bad_url = co_await client.get(std::string("ftp://127.0.0.1/"));
  CHECK(bad_url.error() == std::errc::invalid_argument);
  std::vector<duet::http::OwnedField> evil{{"X-A", "b\r\nX-Evil: 1"}};
  auto split = co_await client.request("GET", server.url("/fixed"), std::move(evil));
  CHECK(split.error() == std::errc::invalid_argument);
  duet::test::RefusingPort refused;
  auto none = co_await client.get("http://127.0.0.1:" + std::to_string(refused.addr.port()) + "/");
  CHECK(none.error() == std::errc::connection_refused);
  CHECK(server.accepts() == 0);
}

}  // namespace

TEST_CASE("a GET reads a Content-Length body and the next request reuses the connection", "[http][client]") {
  on_each_backend(fixed_and_reused);
}

TEST_CASE("a chunked body is de-chunked and its trailers kept", "[http][client]") {
  on_each_backend(chunked_with_trailers);
}

TEST_CASE("a body delimited by the close is read to the end and its connection not pooled", "[http][client]") {
  on_each_backend(close_delimited);
}

TEST_CASE("POST echoes a large body, HEAD has none, an interim 100 is skipped, on one connection", "[http][client]") {
  on_each_backend(post_head_and_interim);
}

TEST_CASE("a pooled connection the server closed is retried once for GET, never for POST", "[http][client]") {
  on_each_backend(stale_connection_retried);
}

TEST_CASE("a connection idle past max_idle_time is closed, not reused", "[http][client]") {
  duet::http::ClientOptions options;
  options.max_idle_time = 50ms;
  on_each_backend(idle_expired, options);
}

TEST_CASE("a server that stalls makes the request time out", "[http][client]") { on_each_backend(stall_times_out); }

TEST_CASE("a stop token cancels a request in flight", "[http][client]") { on_each_backend(stop_cancels); }

TEST_CASE("three requests under when_all run at once on three connections", "[http][client]") {
  on_each_backend(fan_out_when_all);
}

TEST_CASE("when_any returns the first answer and cancels the slower request", "[http][client]") {
  on_each_backend(first_when_any);
}

TEST_CASE("bad URLs, header injection and a refused port are errors, not requests", "[http][client]") {
  on_each_backend(refusals);
}

namespace {

Task<void> https_checked_and_reused(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto first = co_await client.get(server.https_url("127.0.0.1", "/fixed"));
  REQUIRE(first);
  CHECK(first->body == "hello");
  std::string big(100'000, 's');
  auto echo = co_await client.post(server.https_url("localhost", "/echo"), big, "text/plain");
  REQUIRE(echo);
  CHECK(echo->body == big);
  auto chunked = co_await client.get(server.https_url("127.0.0.1", "/chunked"));
  REQUIRE(chunked);
  CHECK(chunked->body == "hello world");
  // One TLS connection per host name in the URL (localhost is another pool key).
  CHECK(server.accepts() == 2);
  auto plain = co_await client.get(server.url("/fixed"));  // http:// to the same host never takes a TLS connection
  REQUIRE(plain);
  CHECK(server.accepts() == 3);
}

Task<void> https_untrusted(EventLoop&, HttpClient& client, HttpTestServer& server) {
  auto r = co_await client.get(server.https_url("127.0.0.1", "/fixed"));
  CHECK(r.error() == duet::tls_errc::certificate_verify_failed);
  CHECK(client.idle_connections() == 0);
}

void on_each_backend_tls(Body body, bool trust_test_ca) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const auto& certs = duet::test::tls_certs();
  duet::TlsContext server_ctx(certs.server());
  duet::TlsContext client_ctx(trust_test_ca ? certs.client() : duet::TlsOptions{});
  HttpTestServer server(backend, &server_ctx);
  EventLoop loop(backend);
  {
    duet::http::ClientOptions options;
    options.tls = &client_ctx;
    HttpClient client(loop, options);
    duet::test::run_bounded(loop, done(body(loop, client, server)), 10s);
  }
  loop.run_once(std::chrono::steady_clock::now());
  CHECK(loop.in_flight() == 0);
}

}  // namespace

TEST_CASE("https:// checks the server's certificate against the client's CAs and reuses the TLS connection",
          "[http][client][tls]") {
  on_each_backend_tls(https_checked_and_reused, true);
}

TEST_CASE("https:// to a server whose CA the client does not trust fails the handshake", "[http][client][tls]") {
  on_each_backend_tls(https_untrusted, false);
}

namespace {
Task<IoResult<ClientResponse>> fetch(HttpClient& client, std::string url) {
  auto r = co_await client.get(std::move(url));
  co_return r;
}
}  // namespace

TEST_CASE("the client reads a file from Python's http.server (HTTP/1.0)", "[http][client][python]") {
  const std::vector<std::pair<std::string, std::string>> files{{"hello.txt", "hello from python\n"}};
  duet::test::PythonHttpServer py(files);
  if (!py.ok()) {
    WARN("python3 -m http.server did not start: skipped");
    return;
  }
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  HttpClient client(loop);
  auto r = duet::test::run_bounded(loop, fetch(client, py.url("/hello.txt")), 10s);
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->version == duet::http::HttpVersion::http_1_0);
  CHECK(r->body == "hello from python\n");
  auto missing = duet::test::run_bounded(loop, fetch(client, py.url("/nope")), 10s);
  REQUIRE(missing);
  CHECK(missing->status == 404);
}
