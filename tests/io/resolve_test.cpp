// Host names: resolve_blocking (getaddrinfo as a value), the stackless
// resolve on the blocking pool, and TcpStream::connect(loop, host, port)
// trying every address, on both backends. Loopback names only.
#include <netdb.h>

#include <algorithm>
#include <stop_token>
#include <string>
#include <system_error>
#include <vector>

#include <catch2/catch.hpp>

#include "duet/io/event_loop.hpp"
#include "duet/io/resolve.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/task/resolve.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"

using duet::Backend;
using duet::EventLoop;
using duet::IoResult;
using duet::SocketAddress;
using duet::Task;

namespace {

bool has_loopback_v4(const std::vector<SocketAddress>& addrs) {
  return std::any_of(addrs.begin(), addrs.end(),
                     [](const SocketAddress& a) { return a.to_string() == "127.0.0.1:6379"; });
}

}  // namespace

TEST_CASE("resolve_blocking gives localhost's loopback addresses with the service's port", "[resolve]") {
  auto addrs = duet::resolve_blocking("localhost", "6379");
  REQUIRE(addrs.ok());
  CHECK(has_loopback_v4(*addrs));
  for (const auto& a : *addrs) CHECK(a.port() == 6379);
  auto numeric = duet::resolve_blocking("::1", "http");  // a service name from /etc/services
  if (numeric.ok()) CHECK(numeric->front().to_string() == "[::1]:80");
}

TEST_CASE("a bad name is an error value carrying gai_strerror's text", "[resolve]") {
  auto bad = duet::resolve_blocking("no-such-host.invalid", "80");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().category() == duet::resolve_category());
  CHECK(bad.error().message() == ::gai_strerror(bad.error().value()));
  auto bad_service = duet::resolve_blocking("localhost", "no-such-service");
  CHECK(bad_service.error() == std::error_code(EAI_SERVICE, duet::resolve_category()));
}

TEST_CASE("a task resolves localhost on the pool and gets a bad name as a value", "[resolve]") {
  EventLoop loop(GENERATE(Backend::io_uring, Backend::epoll));
  auto body = [&]() -> Task<bool> {
    auto good = co_await duet::resolve("localhost", "6379");
    auto bad = co_await duet::resolve("no-such-host.invalid", "6379");
    co_return good.ok() && has_loopback_v4(*good) && !bad.ok() && bad.error().category() == duet::resolve_category();
  };
  CHECK(duet::run_until_complete(loop, body()));
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a resolve whose token is already stopped never looks up", "[resolve]") {
  EventLoop loop(GENERATE(Backend::io_uring, Backend::epoll));
  std::stop_source stop;
  stop.request_stop();
  auto body = [&]() -> Task<std::error_code> {
    auto r = co_await duet::resolve("localhost", "6379", stop.get_token());
    co_return r.error();
  };
  CHECK(duet::run_until_complete(loop, body()) == std::errc::operation_canceled);
}

TEST_CASE("TcpStream::connect by name reaches a listener on localhost", "[resolve]") {
  EventLoop loop(GENERATE(Backend::io_uring, Backend::epoll));
  auto listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  const std::uint16_t port = listener.local_address().port();
  auto accept_one = [&]() -> Task<bool> {
    auto conn = co_await listener.accept();
    co_return conn.ok();
  };
  auto connect_by_name = [&]() -> Task<std::string> {
    auto conn = co_await duet::TcpStream::connect(loop, "localhost", port);
    co_return conn.ok() ? conn->peer_address().to_string() : conn.error().message();
  };
  auto both = [&]() -> Task<std::string> {
    auto [accepted, peer] = co_await duet::when_all(accept_one(), connect_by_name());
    CHECK(accepted);
    co_return peer;
  };
  CHECK(duet::run_until_complete(loop, both()) == "127.0.0.1:" + std::to_string(port));
}

TEST_CASE("TcpStream::connect by name gives the resolver's error for a bad name", "[resolve]") {
  EventLoop loop(GENERATE(Backend::io_uring, Backend::epoll));
  auto body = [&]() -> Task<std::error_code> {
    auto conn = co_await duet::TcpStream::connect(loop, "no-such-host.invalid", 80);
    co_return conn.error();
  };
  CHECK(duet::run_until_complete(loop, body()).category() == duet::resolve_category());
}
