// fiber::TlsStream in the stackful voice over both backends: the stackless
// file's scenarios (tls_test.cpp) as plain blocking calls on fibers.
#include <chrono>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/tls_stream.hpp"
#include "support/payload.hpp"
#include "tls/hello_requests.hpp"
#include "tls/tls_certs.hpp"
#include "duet/tls/tls_error.hpp"
#include "support/on_fibers.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::IoResult;
using duet::SocketAddress;
using duet::tls_errc;
using duet::TlsContext;
using duet::TlsVerify;
using duet::fiber::TcpListener;
using duet::fiber::TcpStream;
using duet::fiber::TlsStream;
using duet::test::tls_certs;
namespace fiber = duet::fiber;

namespace {

// OpenSSL's handshake wants deeper fiber stacks than the default test's 64 KiB.
template <typename Body>
auto on_fibers(Backend backend, Body body) {
  return duet::test::on_fibers(backend, std::move(body), 256 * 1024);
}

struct TcpPair {
  TcpStream client;
  TcpStream server;
};

TcpPair tcp_pair() {
  auto listener = TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
  auto acceptor = fiber::spawn([&listener] { return listener.accept(); });
  auto connected = TcpStream::connect(listener.local_address());
  auto accepted = acceptor.join();
  REQUIRE(accepted.ok());
  REQUIRE(connected.ok());
  return TcpPair{std::move(*connected), std::move(*accepted)};
}

// Both sides' handshakes at once (the server's on a second fiber): {client, server}.
std::pair<IoResult<void>, IoResult<void>> handshake_both(TlsStream& client, TlsStream& server) {
  auto s = fiber::spawn([&server] { return server.handshake(5s); });
  auto c = client.handshake(5s);
  return {c, s.join()};
}

std::string recv_n(TlsStream& s, std::size_t want) {
  std::string got;
  std::vector<char> buf(16 * 1024);
  while (got.size() < want) {
    auto r = s.recv(buf, 5s);
    if (!r) break;
    got.append(buf.data(), *r);
  }
  return got;
}

}  // namespace

TEST_CASE("fibers: a TLS client and server handshake, agree on ALPN and echo 1 MiB") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  const std::string payload = duet::test::patterned_payload(1u << 20);
  CHECK(on_fibers(backend, [&] {
          TcpPair p = tcp_pair();
          TlsStream client(std::move(p.client), client_ctx, "localhost");
          TlsStream server(std::move(p.server), server_ctx);
          auto [c, s] = handshake_both(client, server);
          REQUIRE((c.ok() && s.ok()));
          CHECK(client.engine().alpn() == "redis");
          CHECK(client.engine().peer_certificate_verified());
          auto echo = fiber::spawn([&] { return server.send_all(recv_n(server, payload.size()), 5s).value(); });
          auto writer = fiber::spawn([&] { return client.send_all(payload, 5s).value(); });
          std::string back = recv_n(client, payload.size());
          CHECK(writer.join() == payload.size());
          CHECK(echo.join() == payload.size());
          return back;
        }) == payload);
}

TEST_CASE("fibers: shutdown sends close_notify, a bare TCP FIN is unexpected_eof") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  on_fibers(backend, [&] {
    char buf[16];
    for (bool clean : {true, false}) {
      TcpPair p = tcp_pair();
      TlsStream client(std::move(p.client), client_ctx, "localhost");
      TlsStream server(std::move(p.server), server_ctx);
      auto [c, s] = handshake_both(client, server);
      REQUIRE((c.ok() && s.ok()));
      if (clean) {
        REQUIRE(client.shutdown(1s).ok());
        CHECK(server.recv(buf, 1s).eof());
      } else {
        REQUIRE(client.tcp().shutdown(SHUT_WR).ok());  // FIN without close_notify
        CHECK(server.recv(buf, 1s).error() == tls_errc::unexpected_eof);
      }
    }
    return 0;
  });
}

TEST_CASE("fibers: an untrusted CA and a wrong host name give clear errors") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  auto stranger = tls_certs().server();
  stranger.cert_chain_file = tls_certs().file("stranger.crt");
  stranger.key_file = tls_certs().file("stranger.key");
  TlsContext stranger_ctx(stranger);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  on_fibers(backend, [&] {
    TcpPair p = tcp_pair();
    TlsStream client(std::move(p.client), client_ctx, "localhost");
    TlsStream server(std::move(p.server), stranger_ctx);
    auto [c, s] = handshake_both(client, server);
    CHECK(c.error() == tls_errc::certificate_verify_failed);
    CHECK_THAT(client.error_message(), Catch::Contains("unable to get local issuer certificate"));
    CHECK(s.error() == tls_errc::protocol);

    TcpPair q = tcp_pair();
    TlsStream client2(std::move(q.client), client_ctx, "kv.example.com");
    TlsStream server2(std::move(q.server), server_ctx);
    auto [c2, s2] = handshake_both(client2, server2);
    CHECK(c2.error() == tls_errc::hostname_mismatch);
    CHECK_FALSE(s2.ok());
    return 0;
  });
}

TEST_CASE("fibers: mutual TLS accepts a client certificate from the CA and refuses none") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  TlsContext server_ctx(tls_certs().server(TlsVerify::peer));
  TlsContext with_cert(tls_certs().client(true));
  TlsContext without_cert(tls_certs().client(false));
  on_fibers(backend, [&] {
    TcpPair p = tcp_pair();
    TlsStream client(std::move(p.client), with_cert, "localhost");
    TlsStream server(std::move(p.server), server_ctx);
    auto [c, s] = handshake_both(client, server);
    REQUIRE((c.ok() && s.ok()));
    CHECK(server.engine().peer_certificate_verified());

    TcpPair q = tcp_pair();
    TlsStream anonymous(std::move(q.client), without_cert, "localhost");
    TlsStream server2(std::move(q.server), server_ctx);
    auto [c2, s2] = handshake_both(anonymous, server2);
    CHECK(s2.error() == tls_errc::certificate_verify_failed);
    char buf[8];
    auto r = c2 ? anonymous.recv(buf, 1s) : IoResult<std::size_t>(c2.error());
    CHECK(r.error() == tls_errc::protocol);
    return 0;
  });
}

TEST_CASE("fibers: plain text at a TLS server is a protocol error, a silent peer times out, a stop cancels") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  on_fibers(backend, [&] {
    TcpPair p = tcp_pair();
    TlsStream server(std::move(p.server), server_ctx);
    REQUIRE(p.client.send_all(std::string_view("*1\r\n$4\r\nPING\r\n")).ok());
    CHECK(server.handshake(2s).error() == tls_errc::protocol);
    CHECK_THAT(server.error_message(), Catch::Contains("wrong version number"));

    TcpPair q = tcp_pair();  // the TCP client says nothing
    TlsStream silent(std::move(q.server), server_ctx);
    CHECK(silent.handshake(100ms).error() == std::errc::timed_out);

    TcpPair r = tcp_pair();  // the TCP server says nothing
    TlsStream client(std::move(r.client), client_ctx, "localhost");
    std::stop_source stop;
    auto stopper = fiber::spawn([&stop] {
      fiber::sleep_for(50ms);
      stop.request_stop();
    });
    CHECK(client.handshake(TlsStream::Timeout{0}, stop.get_token()).error() == std::errc::operation_canceled);
    stopper.join();
    return 0;
  });
}

TEST_CASE("fibers: TlsStream::connect connects and handshakes in one call") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  CHECK(on_fibers(backend, [&] {
          auto listener = TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
          auto serve = fiber::spawn([&] {
            auto tcp = listener.accept();
            REQUIRE(tcp.ok());
            TlsStream s(std::move(*tcp), server_ctx);
            return s.send_all(recv_n(s, 4)).value();
          });
          auto c = TlsStream::connect(listener.local_address(), client_ctx, "127.0.0.1", 5s);
          REQUIRE(c.ok());
          REQUIRE(c->send_all(std::string_view("ping")).ok());
          std::string got = recv_n(*c, 4);
          CHECK(serve.join() == 4);
          return got;
        }) == "ping");
}

TEST_CASE("fibers: a client context resumes its session on the next connection to the same host name") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  on_fibers(backend, [&] {
    for (bool second : {false, true}) {
      TcpPair p = tcp_pair();
      TlsStream client(std::move(p.client), client_ctx, "localhost");
      TlsStream server(std::move(p.server), server_ctx);
      auto [c, s] = handshake_both(client, server);
      REQUIRE((c.ok() && s.ok()));
      REQUIRE(server.send_all(std::string_view("x")).ok());  // the client reads the tickets on its way to "x"
      CHECK(recv_n(client, 1) == "x");
      CHECK(client.shutdown(1s).ok());  // a clean end: the session stays resumable
      CHECK(client.engine().session_reused() == second);
      CHECK(server.engine().session_reused() == second);
    }
    return 0;
  });
}

// The peer (attacker) sends HelloRequests and never reads: the victim's reader
// answers each with an alert until its send is stuck in a full socket. Then
// the victim's writer must block too, as over TCP, not queue what it cannot send.
TEST_CASE("fibers: a writer waits while the reader's send is stuck: the queued ciphertext stays bounded") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  on_fibers(backend, [&] {
    TcpPair p = tcp_pair();
    duet::test::shrink_socket_buffers(p.client.native_handle(), p.server.native_handle());
    TlsStream victim(std::move(p.client), client_ctx, "localhost");
    TlsStream attacker(std::move(p.server), server_ctx);
    duet::test::allow_renegotiation(attacker.engine());
    auto [c, s] = handshake_both(victim, attacker);
    REQUIRE((c.ok() && s.ok()));
    auto reader = fiber::spawn([&victim] {
      std::vector<char> buf(4096);
      while (victim.recv(buf, 5s).ok()) {
      }
    });
    std::string backlog;
    for (int round = 0; round < 2000; ++round) {  // until the victim stops reading: its reader is stuck
      if (backlog.size() < 16 * 1024) REQUIRE(duet::test::hello_requests(attacker.engine(), 100, backlog));
      auto r = attacker.tcp().send(backlog, 20ms);
      if (r) backlog.erase(0, *r);
      if (!r && victim.engine().sending()) break;
    }
    REQUIRE(victim.engine().sending());
    const std::string payload(4u << 20, 'x');
    auto sent = victim.send_all(payload, 200ms);
    const std::size_t queued = victim.engine().queued();
    attacker.close();  // the reader's send fails, and so does its recv
    reader.join();
    // Before the fix the writer queued all 4 MiB behind the reader's send and reported them sent.
    CHECK_FALSE(sent.ok());
    CHECK(queued <= duet::TlsEngine::max_queued);
    return 0;
  });
}
