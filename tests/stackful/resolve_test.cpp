// Host names on fibers: fiber::resolve on the blocking pool and
// fiber::TcpStream::connect(host, port) trying every address, both backends.
#include <netdb.h>

#include <algorithm>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>

#include "duet/io/resolve.hpp"
#include "duet/stackful/resolve.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "support/on_fibers.hpp"

using duet::Backend;
using duet::SocketAddress;
namespace fiber = duet::fiber;
using duet::test::on_fibers;

TEST_CASE("a fiber resolves localhost and gets a bad name as a value with gai_strerror's text", "[resolve]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  on_fibers(backend, [] {
    auto good = fiber::resolve("localhost", "6379");
    REQUIRE(good.ok());
    CHECK(std::any_of(good->begin(), good->end(),
                      [](const SocketAddress& a) { return a.to_string() == "127.0.0.1:6379"; }));
    auto bad = fiber::resolve("no-such-host.invalid", "6379");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().category() == duet::resolve_category());
    CHECK(bad.error().message() == ::gai_strerror(bad.error().value()));
    return 0;
  });
}

TEST_CASE("fiber::TcpStream::connect by name reaches a listener on localhost", "[resolve]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const std::string peer = on_fibers(backend, [] {
    auto listener = fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
    auto acceptor = fiber::spawn([&listener] { return listener.accept().ok(); });
    auto conn = fiber::TcpStream::connect("localhost", listener.local_address().port());
    CHECK(acceptor.join());
    REQUIRE(conn.ok());
    return conn->peer_address().to_string() + " " + std::to_string(listener.local_address().port());
  });
  const auto space = peer.find(' ');
  CHECK(peer.substr(0, space) == "127.0.0.1:" + peer.substr(space + 1));
}

TEST_CASE("fiber::TcpStream::connect by name gives the resolver's error for a bad name", "[resolve]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const std::error_code error = on_fibers(backend, [] {
    return fiber::TcpStream::connect("no-such-host.invalid", 80).error();
  });
  CHECK(error.category() == duet::resolve_category());
}
