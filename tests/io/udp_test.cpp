// The stackless UdpSocket over loopback (IPv4 and IPv6): round trips with the
// peer's address, connected sockets, truncation reported, zero-length
// datagrams, timeouts, stop tokens and destroyed frames. Every test runs on
// both backends. No co_await inside a Catch macro: under GCC the macro ran the
// awaited send three times (strace showed three sendmsg for one co_await).
#include <catch2/catch.hpp>

#include <chrono>
#include <stop_token>
#include <string>
#include <string_view>

#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/udp_socket.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/with_timeout.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::Datagram;
using duet::EventLoop;
using duet::IoResult;
using duet::SocketAddress;
using duet::Task;
using duet::UdpSocket;

namespace {

UdpSocket bound(EventLoop& loop, std::string_view host = "127.0.0.1") {
  return UdpSocket::bind(loop, SocketAddress::parse(host, 0).value());
}

std::string_view text(const char* buf, IoResult<Datagram>& d) { return {buf, d->size}; }

}  // namespace

TEST_CASE("a datagram goes out with send_to and comes back to its sender's address on IPv4 and IPv6") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const std::string host = GENERATE(std::string("127.0.0.1"), std::string("::1"));
  INFO("backend " << duet::backend_name(backend) << ", host " << host);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp, std::string h) -> Task<std::string> {
    UdpSocket server = bound(lp, h);
    UdpSocket client = bound(lp, h);
    auto sent = co_await client.send_to(std::string_view("ping"), server.local_address());
    REQUIRE(sent.ok());
    CHECK(*sent == 4);
    char buf[64];
    auto in = co_await server.recv_from(buf);
    REQUIRE(in.ok());
    CHECK(!in->truncated);
    CHECK(in->peer.to_string() == client.local_address().to_string());
    const auto sent1 = co_await server.send_to(std::string(text(buf, in)) + "/pong", in->peer);
    REQUIRE(sent1.ok());
    auto back = co_await client.recv_from(buf);
    REQUIRE(back.ok());
    CHECK(back->peer.port() == server.local_address().port());
    co_return std::string(text(buf, back));
  };
  CHECK(duet::run_until_complete(loop, body(loop, host)) == "ping/pong");
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("connected datagram sockets exchange with send and recv") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<std::string> {
    UdpSocket a = bound(lp);
    UdpSocket b = UdpSocket::open(lp, AF_INET);
    REQUIRE(b.connect(a.local_address()).ok());
    REQUIRE(a.connect(b.local_address()).ok());
    CHECK(b.peer_address().port() == a.local_address().port());
    const auto sent2 = co_await b.send(std::string_view("hello"));
    REQUIRE(sent2.ok());
    char buf[16];
    auto in = co_await a.recv(buf);
    REQUIRE(in.ok());
    CHECK(in->peer.family() == AF_UNSPEC);  // recv does not ask for the sender
    co_return std::string(text(buf, in));
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == "hello");
}

TEST_CASE("a datagram longer than the buffer is reported truncated with its full size, not as a short read") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<void> {
    UdpSocket server = bound(lp);
    UdpSocket client = bound(lp);
    const std::string big(1000, 'x');
    const auto sent3 = co_await client.send_to(big, server.local_address());
    REQUIRE(sent3.ok());
    const auto sent4 = co_await client.send_to(std::string_view("next"), server.local_address());
    REQUIRE(sent4.ok());
    char small[100];
    auto first = co_await server.recv_from(small);
    REQUIRE(first.ok());
    CHECK(first->truncated);
    CHECK(first->size == sizeof small);
    CHECK(first->full_size == big.size());
    auto second = co_await server.recv(small);  // the lost tail does not leak into the next datagram
    REQUIRE(second.ok());
    CHECK(!second->truncated);
    CHECK(text(small, second) == "next");
  };
  duet::run_until_complete(loop, body(loop));
}

TEST_CASE("a zero-length datagram arrives as size 0, not as EOF") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    UdpSocket server = bound(lp);
    UdpSocket client = bound(lp);
    const auto sent5 = co_await client.send_to(std::string_view(), server.local_address());
    REQUIRE(sent5.ok());
    char buf[8];
    auto in = co_await server.recv_from(buf);
    co_return in.ok() && in->size == 0 && !in->truncated && !in.eof();
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
}

TEST_CASE("a datagram recv with a timeout gives timed_out and the next datagram still arrives") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    UdpSocket server = bound(lp);
    UdpSocket client = bound(lp);
    char buf[16];
    const auto start = std::chrono::steady_clock::now();
    auto r = co_await duet::with_timeout(server.recv_from(buf), 30ms);
    CHECK(std::chrono::steady_clock::now() - start >= 30ms);
    CHECK(r.error() == std::errc::timed_out);
    const auto sent6 = co_await client.send_to(std::string_view("late"), server.local_address());
    REQUIRE(sent6.ok());
    auto in = co_await duet::with_timeout(server.recv_from(buf), 2s);
    co_return r.error() == std::errc::timed_out && in.ok() && text(buf, in) == "late";
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a stop token cancels a pending datagram recv, and one stopped before fails at once") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    UdpSocket server = bound(lp);
    std::stop_source stop;
    char buf[16];
    auto reader = [](UdpSocket& s, std::span<char> b, std::stop_token t) -> Task<std::error_code> {
      co_return (co_await s.recv_from(b, t)).error();
    };
    auto stopper = [](EventLoop& l, std::stop_source& s) -> Task<void> {
      co_await duet::sleep_for(l, 20ms);
      s.request_stop();
    };
    auto [err, none] = co_await duet::when_all(reader(server, buf, stop.get_token()), stopper(lp, stop));
    (void)none;
    auto again = co_await server.recv(buf, stop.get_token());
    co_return err == std::errc::operation_canceled && again.error() == std::errc::operation_canceled;
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("destroying a task suspended in recv_from cancels the op before its buffer and msghdr die") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  UdpSocket server = bound(loop);
  auto reader = [](UdpSocket& s) -> Task<void> {
    char buf[512];  // in the frame, beside the awaiter's msghdr
    (void)co_await s.recv_from(buf);
  };
  {
    Task<void> t = reader(server);
    t.handle().resume();
    loop.run_once();
    CHECK(loop.in_flight() == 1);
  }
  CHECK(loop.in_flight() == 0);
  auto body = [](EventLoop& lp, UdpSocket& s) -> Task<std::string> {
    UdpSocket client = bound(lp);
    const auto sent7 = co_await client.send_to(std::string_view("still here"), s.local_address());
    REQUIRE(sent7.ok());
    char buf[32];
    auto in = co_await duet::with_timeout(s.recv_from(buf), 2s);
    REQUIRE(in.ok());
    co_return std::string(text(buf, in));
  };
  CHECK(duet::run_until_complete(loop, body(loop, server)) == "still here");
}

TEST_CASE("a send_to an address of the other family fails as a value") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    UdpSocket v4 = bound(lp);
    auto r = co_await v4.send_to(std::string_view("x"), SocketAddress::parse("::1", 9).value());
    co_return !r.ok() && r.error().category() == std::generic_category();
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
}

TEST_CASE("binding a UDP port already taken throws, as setup errors do") {
  EventLoop loop(Backend::epoll);
  UdpSocket first = bound(loop);
  CHECK_THROWS_AS(UdpSocket::bind(loop, first.local_address()), std::system_error);
}

TEST_CASE("a connected datagram socket's recv reports the peer's port unreachable as connection_refused") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<std::error_code> {
    SocketAddress closed;
    {
      UdpSocket gone = bound(lp);  // a port that was free a moment ago, now closed again
      closed = gone.local_address();
    }
    UdpSocket sock = UdpSocket::open(lp, AF_INET);
    REQUIRE(sock.connect(closed).ok());
    const auto sent = co_await sock.send(std::string_view("anyone?"));
    REQUIRE(sent.ok());
    char buf[16];
    auto r = co_await duet::with_timeout(sock.recv(buf), 2s);  // the ICMP error arrives as a value
    co_return r.error();
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == std::errc::connection_refused);
}
