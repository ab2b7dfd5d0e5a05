// Unix domain stream sockets on fibers: fiber::UnixListener and
// fiber::UnixStream (the fiber TcpListener and TcpStream over AF_UNIX) echo
// over a filesystem path and an abstract name on both backends, a stale
// socket file is replaced, and a missing path is an error value.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "stackful/tcp_listener.hpp"
#include "stackful/tcp_stream.hpp"
#include "stackful/this_fiber.hpp"
#include "support/on_fibers.hpp"
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::SocketAddress;
using duet::fiber::UnixListener;
using duet::fiber::UnixStream;
using duet::test::on_fibers;
namespace fiber = duet::fiber;

namespace {

// One connection: the client sends "ping", the server answers "pong:" + what it got.
std::string echo_once(UnixListener& listener, const SocketAddress& where) {
  auto server = fiber::spawn([&listener] {
    auto conn = listener.accept(2s);
    if (!conn) return false;
    char buf[16];
    auto n = conn->recv(buf, 2s);
    return n && conn->send_all("pong:" + std::string(buf, *n)).ok();
  });
  auto conn = UnixStream::connect(where, 2s);
  if (!conn) return conn.error().message();
  (void)conn->send_all(std::string_view("ping"));
  std::string got;
  char buf[16];
  for (auto n = conn->recv(buf, 2s); n; n = conn->recv(buf, 2s)) got.append(buf, *n);
  CHECK(server.join());
  return got;
}

}  // namespace

TEST_CASE("a fiber's Unix stream socket echoes over a filesystem path and over an abstract name") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const bool abstract = GENERATE(false, true);
  INFO("backend " << duet::backend_name(backend) << (abstract ? ", abstract" : ", path"));
  duet::test::TempDir dir("duet-fiber-unix");
  const std::string name = abstract ? "@duet-fiber-test-" + std::to_string(::getpid()) : dir.file("echo.sock");
  CHECK(on_fibers(backend, [&name] {
          const SocketAddress addr = SocketAddress::unix_domain(name).value();
          auto listener = UnixListener::bind(addr);
          return echo_once(listener, addr);
        }) == "pong:ping");
}

TEST_CASE("a fiber's Unix listener replaces a stale socket file, and a missing path is an error value") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-unix");
  const SocketAddress addr = SocketAddress::unix_domain(dir.file("stale.sock")).value();
  const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(::bind(stale, addr.data(), addr.size()) == 0);
  ::close(stale);
  CHECK(on_fibers(backend, [&] {
          auto listener = UnixListener::bind(addr);
          return echo_once(listener, addr);
        }) == "pong:ping");
  const SocketAddress missing = SocketAddress::unix_domain(dir.file("missing.sock")).value();
  CHECK(on_fibers(backend, [&] { return UnixStream::connect(missing).error(); }) ==
        std::errc::no_such_file_or_directory);
}
