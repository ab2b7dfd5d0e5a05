// The code docs/GUIDE.md quotes in its TLS chapter (```cpp blocks: stackless,
// checked by tests/io/check_guide.py; ```c++ blocks: stackful, checked by
// tests/stackful/check_guide_stackful.py). The test cases at the bottom run
// the snippets on both backends.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <string_view>

#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/stackful/tls_stream.hpp>
#include <duet/task/run.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tls_stream.hpp>
#include <duet/task/when_all.hpp>
#include "tls/tls_certs.hpp"
#include <duet/tls/tls_error.hpp>

using namespace std::chrono_literals;

namespace guide_tls {

// guide:begin tls_contexts
duet::TlsContext make_server_context(const std::string& dir) {
  duet::TlsOptions o;
  o.role = duet::TlsRole::server;
  o.cert_chain_file = dir + "/server.crt";  // leaf first, then intermediates
  o.key_file = dir + "/server.key";
  o.verify = duet::TlsVerify::none;  // TlsVerify::peer (+ ca_file) for mutual TLS
  o.alpn = {"redis"};
  return duet::TlsContext(o);  // throws std::system_error(tls_errc::configuration) on a bad file
}

duet::TlsContext make_client_context(const std::string& dir) {
  duet::TlsOptions o;          // role client, verify peer, TLS 1.2 at least
  o.ca_file = dir + "/ca.crt";  // empty: the system's trust store
  o.alpn = {"redis"};
  return duet::TlsContext(o);
}
// guide:end

// guide:begin tls_echo_task
duet::Task<void> serve_tls(duet::TcpStream tcp, const duet::TlsContext& ctx) {
  duet::TlsStream conn(std::move(tcp), ctx);
  if (auto hs = co_await conn.handshake(5s); !hs) {  // a silent peer: timed_out
    std::fprintf(stderr, "handshake: %s (%s)\n", hs.error().message().c_str(), conn.error_message().c_str());
    co_return;                                      // plain text: tls_errc::protocol
  }
  char buf[4096];
  for (;;) {
    auto n = co_await conn.recv(buf, 30s);  // decrypted bytes; eof() = close_notify
    if (!n) break;
    if (!co_await conn.send_all(std::string_view(buf, *n))) break;
  }
  (void)co_await conn.shutdown(1s);  // close_notify, then FIN
}
// guide:end

// guide:begin tls_client_task
duet::Task<std::string> ask(duet::EventLoop& loop, duet::SocketAddress server, const duet::TlsContext& ctx) {
  // "localhost" is both the SNI name and the name the certificate must carry.
  auto conn = co_await duet::TlsStream::connect(loop, server, ctx, "localhost", 5s);
  if (!conn) {
    if (conn.error() == duet::tls_errc::hostname_mismatch) co_return "wrong certificate";
    co_return conn.error().message();  // certificate_verify_failed, connection_refused, ...
  }
  // The record layer is OpenSSL's, in this process: the only mode this build has.
  assert(conn->engine().record_layer() == duet::RecordLayer::userspace);
  (void)co_await conn->send_all(std::string_view("hello"));
  char buf[16];
  auto n = co_await conn->recv(buf, 5s);
  co_return n ? std::string(buf, *n) : n.error().message();
}
// guide:end

// guide:begin tls_echo_fiber
void serve_tls_fiber(duet::fiber::TcpStream tcp, const duet::TlsContext& ctx) {
  duet::fiber::TlsStream conn(std::move(tcp), ctx);
  if (!conn.handshake(5s)) return;  // the error and conn.error_message() say why
  char buf[4096];
  for (;;) {
    auto n = conn.recv(buf, 30s);
    if (!n || !conn.send_all(std::string_view(buf, *n))) break;
  }
  (void)conn.shutdown(1s);
}

std::string ask_fiber(duet::SocketAddress server, const duet::TlsContext& ctx) {
  auto conn = duet::fiber::TlsStream::connect(server, ctx, "localhost", 5s);
  if (!conn) return conn.error().message();
  (void)conn->send_all(std::string_view("hello"));
  char buf[16];
  auto n = conn->recv(buf, 5s);
  return n ? std::string(buf, *n) : n.error().message();
}
// guide:end

}  // namespace guide_tls

namespace {
std::string cert_dir() {
  const std::string ca = duet::test::tls_certs().file("ca.crt");
  return ca.substr(0, ca.rfind('/'));
}
}  // namespace

TEST_CASE("the GUIDE's TLS echo server and client work in the stackless voice") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::EventLoop loop(backend);
  const auto server_ctx = guide_tls::make_server_context(cert_dir());
  const auto client_ctx = guide_tls::make_client_context(cert_dir());
  auto body = [&]() -> duet::Task<std::string> {
    auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
    auto accept_one = [](duet::TcpListener& l, const duet::TlsContext& ctx) -> duet::Task<void> {
      auto tcp = co_await l.accept();
      REQUIRE(tcp.ok());
      co_await guide_tls::serve_tls(std::move(*tcp), ctx);
    };
    auto client = [](duet::EventLoop& lp, duet::SocketAddress a, const duet::TlsContext& ctx) -> duet::Task<std::string> {
      auto got = co_await guide_tls::ask(lp, a, ctx);
      co_return got;
    };
    auto [unused, got] = co_await duet::when_all(accept_one(listener, server_ctx),
                                                 client(loop, listener.local_address(), client_ctx));
    co_return got;
  };
  CHECK(duet::run_until_complete(loop, body()) == "hello");
}

TEST_CASE("the GUIDE's TLS echo server and client work on fibers") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  const auto server_ctx = guide_tls::make_server_context(cert_dir());
  const auto client_ctx = guide_tls::make_client_context(cert_dir());
  duet::fiber::Scheduler scheduler({.backend = backend, .stack_size = 256 * 1024});
  auto main_fiber = scheduler.spawn([&] {
    auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 0).value());
    auto server = duet::fiber::spawn([&] {
      auto tcp = listener.accept();
      REQUIRE(tcp.ok());
      guide_tls::serve_tls_fiber(std::move(*tcp), server_ctx);
    });
    std::string got = guide_tls::ask_fiber(listener.local_address(), client_ctx);
    server.join();
    return got;
  });
  CHECK(main_fiber.join() == "hello");
  scheduler.run();
}
