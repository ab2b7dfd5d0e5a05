// The stackless UdpSocket scenarios (tests/io/udp_test.cpp) on fibers: the
// same calls as blocking code, the same IoResult<Datagram> values, over both
// backends, plus a reader fiber parked in recv_from while another sends.
#include <catch2/catch.hpp>

#include <chrono>
#include <stop_token>
#include <string>
#include <string_view>

#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/udp_socket.hpp"
#include "support/on_fibers.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::Datagram;
using duet::IoResult;
using duet::SocketAddress;
using duet::test::on_fibers;
using duet::fiber::UdpSocket;
namespace fiber = duet::fiber;

namespace {

UdpSocket bound(std::string_view host = "127.0.0.1") { return UdpSocket::bind(SocketAddress::parse(host, 0).value()); }

std::string text(const char* buf, IoResult<Datagram>& d) { return d ? std::string(buf, d->size) : std::string(); }

}  // namespace

TEST_CASE("a fiber's datagram goes out with send_to and comes back to its sender on IPv4 and IPv6") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const std::string host = GENERATE(std::string("127.0.0.1"), std::string("::1"));
  INFO("backend " << duet::backend_name(backend) << ", host " << host);
  CHECK(on_fibers(backend, [host] {
          UdpSocket server = bound(host);
          UdpSocket client = bound(host);
          // The server fiber parks in recv_from before the datagram exists.
          auto echo = fiber::spawn([&server] {
            char buf[64];
            auto in = server.recv_from(buf, 2s);
            if (!in) return false;
            return server.send_to(text(buf, in) + "/pong", in->peer).ok() &&
                   in->peer.port() != 0;
          });
          fiber::sleep_for(5ms);
          auto sent = client.send_to(std::string_view("ping"), server.local_address());
          CHECK(sent.value() == 4);
          char buf[64];
          auto back = client.recv_from(buf, 2s);
          CHECK(echo.join());
          REQUIRE(back.ok());
          CHECK(back->peer.to_string() == server.local_address().to_string());
          return text(buf, back);
        }) == "ping/pong");
}

TEST_CASE("connected fiber datagram sockets exchange with send and recv") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  CHECK(on_fibers(backend, [] {
          UdpSocket a = bound();
          UdpSocket b = UdpSocket::open(AF_INET);
          REQUIRE(b.connect(a.local_address()).ok());
          REQUIRE(b.send(std::string_view("hello")).ok());
          char buf[16];
          auto in = a.recv(buf, 2s);
          CHECK(in->peer.family() == AF_UNSPEC);
          return text(buf, in);
        }) == "hello");
}

TEST_CASE("a fiber's recv reports a datagram longer than its buffer as truncated, then the next one whole") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  on_fibers(backend, [] {
    UdpSocket server = bound();
    UdpSocket client = bound();
    REQUIRE(client.send_to(std::string(1000, 'x'), server.local_address()).ok());
    REQUIRE(client.send_to(std::string_view("next"), server.local_address()).ok());
    char small[100];
    auto first = server.recv_from(small, 2s);
    REQUIRE(first.ok());
    CHECK(first->truncated);
    CHECK(first->size == sizeof small);
    CHECK(first->full_size == 1000);
    auto second = server.recv(small, 2s);
    CHECK(!second->truncated);
    CHECK(text(small, second) == "next");
    return 0;
  });
}

TEST_CASE("a fiber's datagram recv times out, and a stop token cancels another") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  on_fibers(backend, [] {
    UdpSocket server = bound();
    char buf[16];
    const auto start = std::chrono::steady_clock::now();
    CHECK(server.recv_from(buf, 30ms).error() == std::errc::timed_out);
    CHECK(std::chrono::steady_clock::now() - start >= 30ms);
    std::stop_source stop;
    auto reader = fiber::spawn([&] { return server.recv_from(buf, stop.get_token()).error(); });
    fiber::sleep_for(20ms);
    stop.request_stop();
    CHECK(reader.join() == std::errc::operation_canceled);
    CHECK(server.recv(buf, stop.get_token()).error() == std::errc::operation_canceled);
    return 0;
  });
}
