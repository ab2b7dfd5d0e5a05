// Unix domain stream sockets on fibers: fiber::UnixListener and
// fiber::UnixStream (the fiber TcpListener and TcpStream over AF_UNIX) echo
// over a filesystem path and an abstract name on both backends, a stale
// socket file is replaced but a live server's is not, close removes only the
// listener's own file, and a missing path is an error value.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <system_error>
#include <utility>

#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
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

bool is_socket_file(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
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

TEST_CASE("a fiber's Unix bind over a live server's socket fails with EADDRINUSE and that server keeps serving") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::test::TempDir dir("duet-fiber-unix");
  const SocketAddress addr = SocketAddress::unix_domain(dir.file("live.sock")).value();
  CHECK(on_fibers(backend, [&addr] {
          auto first = UnixListener::bind(addr);
          std::error_code refused;
          try {
            (void)UnixListener::bind(addr);
          } catch (const std::system_error& e) {
            refused = e.code();
          }
          CHECK(refused == std::errc::address_in_use);
          auto probe = first.accept(2s);  // the second bind's probe, ended at once
          CHECK(probe);
          char buf[4];
          if (probe) {
            CHECK(probe->recv(buf, 2s).eof());
          }
          return echo_once(first, addr);
        }) == "pong:ping");
}

TEST_CASE("a fiber's Unix listener removes its socket file at close, but not a file that replaced it") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::test::TempDir dir("duet-fiber-unix");
  const std::string path = dir.file("replaced.sock");
  const SocketAddress addr = SocketAddress::unix_domain(path).value();
  CHECK(on_fibers(backend, [&] {
          auto first = UnixListener::bind(addr);
          REQUIRE(::unlink(path.c_str()) == 0);  // someone removes the first server's file...
          auto second = UnixListener::bind(addr);  // ...and a second server binds the path
          first.close();
          REQUIRE(is_socket_file(path));
          std::string got = echo_once(second, addr);
          UnixListener moved = std::move(second);  // the file goes with the listener
          second.close();
          CHECK(is_socket_file(path));
          moved.close();
          CHECK_FALSE(is_socket_file(path));
          return got;
        }) == "pong:ping");
}
