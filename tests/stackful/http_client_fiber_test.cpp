// duet::fiber::HttpClient (stackful/http_client.hpp) on both backends against
// the scripted server of the stackless client's tests
// (support/http_test_server.hpp): the same behaviours as
// tests/task/http_client_test.cpp, as blocking calls on fibers; fan-out by
// three fibers joined, and fiber::when_any.
#include <catch2/catch.hpp>
#include <chrono>
#include <stop_token>
#include <string>
#include <variant>

#include "duet/stackful/http_client.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/when_any.hpp"
#include "duet/tls/tls_context.hpp"
#include "duet/tls/tls_error.hpp"
#include "support/http_test_server.hpp"
#include "support/on_fibers.hpp"
#include "support/python_http_server.hpp"
#include "support/refusing_port.hpp"
#include "tls/tls_certs.hpp"

namespace {

using duet::Backend;
using duet::fiber::HttpClient;
using duet::test::HttpTestServer;
using namespace std::chrono_literals;

template <typename Body>
void on_each_backend(Body body) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  HttpTestServer server(backend);
  duet::test::run_checked_on_fibers(backend, [&] {
    HttpClient client;
    body(client, server);
  });
}

}  // namespace

TEST_CASE("fiber client: a GET reads a Content-Length body and the next request reuses the connection",
          "[http][client][fiber]") {
  on_each_backend([](HttpClient& client, HttpTestServer& server) {
    auto first = client.get(server.url("/fixed"));
    REQUIRE(first);
    CHECK(first->status == 200);
    CHECK(first->body == "hello");
    CHECK(first->find("X-METHOD") == "GET");
    auto second = client.get(server.url("/fixed"));
    REQUIRE(second);
    CHECK(second->body == "hello");
    CHECK(server.accepts() == 1);
    CHECK(client.idle_connections() == 1);
  });
}

TEST_CASE("fiber client: chunked with trailers, close-delimited, POST, HEAD and an interim 100",
          "[http][client][fiber]") {
  on_each_backend([](HttpClient& client, HttpTestServer& server) {
    auto chunked = client.get(server.url("/chunked"));
    REQUIRE(chunked);
    CHECK(chunked->body == "hello world");
    REQUIRE(chunked->trailers.size() == 1);
    CHECK(chunked->trailers[0].second == "1");
    std::string big(150'000, 'y');
    big[77'777] = 'z';
    auto echo = client.post(server.url("/echo"), big, "application/octet-stream");
    REQUIRE(echo);
    CHECK(echo->body == big);
    auto head = client.request("HEAD", server.url("/head-info"));
    REQUIRE(head);
    CHECK(head->body.empty());
    auto interim = client.get(server.url("/interim"));
    REQUIRE(interim);
    CHECK(interim->body == "after");
    CHECK(server.accepts() == 1);
    auto close = client.get(server.url("/close"));
    REQUIRE(close);
    CHECK(close->body == "until the close");
    CHECK(client.idle_connections() == 0);
  });
}

TEST_CASE("fiber client: a stale pooled connection is retried once for GET, never for POST", "[http][client][fiber]") {
  on_each_backend([](HttpClient& client, HttpTestServer& server) {
    REQUIRE(client.get(server.url("/stale")));
    duet::fiber::sleep_for(20ms);
    auto again = client.get(server.url("/fixed"));
    REQUIRE(again);
    CHECK(again->body == "hello");
    CHECK(server.accepts() == 2);
    REQUIRE(client.get(server.url("/stale")));
    duet::fiber::sleep_for(20ms);
    CHECK(!client.post(server.url("/echo"), "once", "text/plain"));
    CHECK(server.accepts() == 2);
  });
}

TEST_CASE("fiber client: a stalled server times out and a stop token cancels", "[http][client][fiber]") {
  on_each_backend([](HttpClient& client, HttpTestServer& server) {
    duet::http::RequestOptions options;
    options.timeout = 200ms;
    const auto start = std::chrono::steady_clock::now();
    auto r = client.get(server.url("/stall"), options);
    CHECK(r.error() == std::errc::timed_out);
    CHECK(std::chrono::steady_clock::now() - start < 2s);

    std::stop_source stop;
    auto stopper = duet::fiber::spawn([&] {
      duet::fiber::sleep_for(50ms);
      stop.request_stop();
    });
    duet::http::RequestOptions cancel;
    cancel.stop = stop.get_token();
    auto c = client.get(server.url("/stall"), cancel);
    stopper.join();
    CHECK(c.error() == std::errc::operation_canceled);
    CHECK(client.idle_connections() == 0);
  });
}

TEST_CASE("fiber client: three requests on three fibers run at once; when_any takes the first",
          "[http][client][fiber]") {
  on_each_backend([](HttpClient& client, HttpTestServer& server) {
    auto a = duet::fiber::spawn([&] { return client.get(server.url("/slow?30")); });
    auto b = duet::fiber::spawn([&] { return client.get(server.url("/fixed")); });
    auto c = duet::fiber::spawn([&] { return client.get(server.url("/chunked")); });
    auto ra = a.join(), rb = b.join(), rc = c.join();
    REQUIRE((ra && rb && rc));
    CHECK(ra->body == "slow-30");
    CHECK(rb->body == "hello");
    CHECK(rc->body == "hello world");
    CHECK(server.accepts() == 3);

    const auto start = std::chrono::steady_clock::now();
    auto first = duet::fiber::when_any(
        [&](std::stop_token t) {
          return client.get(server.url("/slow?3000"), {std::chrono::milliseconds(0), t});
        },
        [&](std::stop_token t) {
          return client.get(server.url("/slow?20"), {std::chrono::milliseconds(0), t});
        });
    REQUIRE(first.index() == 1);
    REQUIRE(std::get<1>(first));
    CHECK(std::get<1>(first)->body == "slow-20");
    CHECK(std::chrono::steady_clock::now() - start < 2s);
  });
}

TEST_CASE("fiber client: bad URLs, header injection and a refused port are errors", "[http][client][fiber]") {
  on_each_backend([](HttpClient& client, HttpTestServer& server) {
    CHECK(client.get("ftp://127.0.0.1/").error() == std::errc::invalid_argument);
    CHECK(client.get("http://127.0.0.1:0/").error() == std::errc::invalid_argument);
    CHECK(client.request("GET", server.url("/"), {{"X", "a\nb"}}).error() == std::errc::invalid_argument);
    duet::test::RefusingPort refused;
    auto none = client.get("http://127.0.0.1:" + std::to_string(refused.addr.port()) + "/");
    CHECK(none.error() == std::errc::connection_refused);
    CHECK(server.accepts() == 0);
  });
}

TEST_CASE("fiber client: https:// checks the certificate, reuses the TLS connection, refuses an untrusted CA",
          "[http][client][fiber][tls]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const auto& certs = duet::test::tls_certs();
  duet::TlsContext server_ctx(certs.server());
  duet::TlsContext trusting(certs.client());
  duet::TlsContext system_only(duet::TlsOptions{});
  HttpTestServer server(backend, &server_ctx);
  // OpenSSL's handshake wants a deeper stack than the default 64 KiB.
  bool ok = duet::test::on_fibers(
      backend,
      [&] {
        duet::http::ClientOptions options;
        options.tls = &trusting;
        HttpClient client(options);
        auto first = client.get(server.https_url("127.0.0.1", "/fixed"));
        REQUIRE(first);
        CHECK(first->body == "hello");
        auto chunked = client.get(server.https_url("127.0.0.1", "/chunked"));
        REQUIRE(chunked);
        CHECK(chunked->body == "hello world");
        std::string big(100'000, 'f');
        auto echo = client.post(server.https_url("127.0.0.1", "/echo"), big, "text/plain");
        REQUIRE(echo);
        CHECK(echo->body == big);
        CHECK(server.accepts() == 1);

        duet::http::ClientOptions strict;
        strict.tls = &system_only;
        HttpClient stranger(strict);
        auto refused = stranger.get(server.https_url("127.0.0.1", "/fixed"));
        CHECK(refused.error() == duet::tls_errc::certificate_verify_failed);
        return true;
      },
      256 * 1024);
  CHECK(ok);
}

TEST_CASE("fiber client: reads a file from Python's http.server (HTTP/1.0)", "[http][client][fiber][python]") {
  const std::vector<std::pair<std::string, std::string>> files{{"f.txt", "from python"}};
  duet::test::PythonHttpServer py(files);
  if (!py.ok()) {
    WARN("python3 -m http.server did not start: skipped");
    return;
  }
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::run_checked_on_fibers(backend, [&] {
    HttpClient client;
    auto r = client.get(py.url("/f.txt"));
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->body == "from python");
  });
}
