// Unix domain stream sockets in the stackless voice: UnixListener and
// UnixStream (TcpListener and TcpStream over AF_UNIX) echo over a filesystem
// path and an abstract name on both backends; bind removes a stale socket
// file but never a regular one nor a live server's; close removes the file
// only while it is the listener's own; unix_mode sets the file's
// permissions; errors are values. SocketAddress's AF_UNIX form is checked here too.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/with_timeout.hpp"
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::EventLoop;
using duet::IoResult;
using duet::SocketAddress;
using duet::Task;
using duet::UnixListener;
using duet::UnixStream;

namespace {

// One connection: the client sends "ping", the server answers "pong:" + what it got.
Task<std::string> echo_once(EventLoop& loop, UnixListener& listener, SocketAddress where) {
  auto serve = [](UnixListener& l) -> Task<bool> {
    auto conn = co_await duet::with_timeout(l.accept(), 2s);
    if (!conn) co_return false;
    char buf[16];
    auto n = co_await conn->recv(buf);
    if (!n) co_return false;
    auto sent = co_await conn->send_all("pong:" + std::string(buf, *n));
    co_return sent.ok();
  };
  auto ask = [](EventLoop& lp, SocketAddress at) -> Task<std::string> {
    auto conn = co_await duet::with_timeout(UnixStream::connect(lp, at), 2s);
    if (!conn) co_return conn.error().message();
    auto sent = co_await conn->send_all(std::string_view("ping"));
    if (!sent) co_return sent.error().message();
    char buf[16];
    std::string got;
    for (;;) {
      auto n = co_await duet::with_timeout(conn->recv(buf), 2s);
      if (!n) break;
      got.append(buf, *n);
    }
    co_return got;
  };
  auto [served, got] = co_await duet::when_all(serve(listener), ask(loop, where));
  CHECK(served);
  co_return got;
}

bool is_socket_file(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

TEST_CASE("a Unix stream socket echoes over a filesystem path and over an abstract name") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const bool abstract = GENERATE(false, true);
  INFO("backend " << duet::backend_name(backend) << (abstract ? ", abstract" : ", path"));
  duet::test::TempDir dir("duet-unix");
  const std::string abstract_name = "@duet-test-" + std::to_string(::getpid()) + "-" + std::string(duet::backend_name(backend));
  const std::string name = abstract ? abstract_name : dir.file("echo.sock");
  const SocketAddress addr = SocketAddress::unix_domain(name).value();
  EventLoop loop(backend);
  auto listener = UnixListener::bind(loop, addr);
  CHECK(listener.local_address().to_string() == name);
  CHECK(is_socket_file(name) == !abstract);  // an abstract name makes no file
  CHECK(duet::run_until_complete(loop, echo_once(loop, listener, addr)) == "pong:ping");
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("binding a Unix path removes a stale socket file left by a dead server, as Redis does") {
  duet::test::TempDir dir("duet-unix");
  const std::string path = dir.file("stale.sock");
  const SocketAddress addr = SocketAddress::unix_domain(path).value();
  {  // a server that died without unlinking: its socket file stays behind
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(::bind(fd, addr.data(), addr.size()) == 0);
    ::close(fd);
  }
  REQUIRE(is_socket_file(path));
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto listener = UnixListener::bind(loop, addr);  // bind(2) alone would fail with EADDRINUSE
  CHECK(duet::run_until_complete(loop, echo_once(loop, listener, addr)) == "pong:ping");
}

TEST_CASE("binding a Unix path where a server listens fails with EADDRINUSE and leaves that server working") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::test::TempDir dir("duet-unix");
  const std::string path = dir.file("live.sock");
  const SocketAddress addr = SocketAddress::unix_domain(path).value();
  EventLoop loop(backend);
  auto first = UnixListener::bind(loop, addr);
  try {
    (void)UnixListener::bind(loop, addr);
    FAIL("the second bind took the live server's path");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::address_in_use);
  }
  REQUIRE(is_socket_file(path));
  // The second bind's probe is a connection the first server sees end at once.
  auto take_probe = [](UnixListener& l) -> Task<bool> {
    auto conn = co_await duet::with_timeout(l.accept(), 2s);
    if (!conn) co_return false;
    char buf[4];
    auto n = co_await duet::with_timeout(conn->recv(buf), 2s);
    co_return n.eof();
  };
  CHECK(duet::run_until_complete(loop, take_probe(first)));
  CHECK(duet::run_until_complete(loop, echo_once(loop, first, addr)) == "pong:ping");
}

TEST_CASE("a Unix listener removes its socket file at close, but not a file that replaced it") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::test::TempDir dir("duet-unix");
  const std::string path = dir.file("replaced.sock");
  const SocketAddress addr = SocketAddress::unix_domain(path).value();
  EventLoop loop(backend);
  auto first = UnixListener::bind(loop, addr);
  REQUIRE(::unlink(path.c_str()) == 0);  // someone removes the first server's file...
  auto second = UnixListener::bind(loop, addr);  // ...and a second server binds the path
  first.close();
  REQUIRE(is_socket_file(path));
  CHECK(duet::run_until_complete(loop, echo_once(loop, second, addr)) == "pong:ping");
  UnixListener moved = std::move(second);  // the file goes with the listener
  second.close();
  CHECK(is_socket_file(path));
  moved.close();
  CHECK_FALSE(is_socket_file(path));
}

TEST_CASE("binding a Unix path that names a regular file throws and leaves the file alone") {
  duet::test::TempDir dir("duet-unix");
  const std::string path = dir.file("precious.txt");
  std::ofstream(path) << "keep me";
  EventLoop loop(Backend::epoll);
  CHECK_THROWS_AS(UnixListener::bind(loop, SocketAddress::unix_domain(path).value()), std::system_error);
  std::string kept;
  std::getline(std::ifstream(path), kept);
  CHECK(kept == "keep me");
}

TEST_CASE("unix_mode sets the socket file's permissions before anyone can connect") {
  duet::test::TempDir dir("duet-unix");
  const std::string path = dir.file("perm.sock");
  EventLoop loop(Backend::epoll);
  auto listener = UnixListener::bind(loop, SocketAddress::unix_domain(path).value(), {.unix_mode = 0700});
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("connecting to a Unix path nobody listens on fails as a value") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-unix");
  EventLoop loop(backend);
  auto body = [](EventLoop& lp, std::string path) -> Task<std::error_code> {
    auto conn = co_await UnixStream::connect(lp, SocketAddress::unix_domain(path).value());
    co_return conn.error();
  };
  CHECK(duet::run_until_complete(loop, body(loop, dir.file("nobody.sock"))) == std::errc::no_such_file_or_directory);
}

TEST_CASE("a Unix stream has no Nagle: set_nodelay says operation_not_supported") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
  EventLoop loop(Backend::epoll);
  UnixStream a(loop, fds[0]);
  UnixStream b(loop, fds[1]);
  CHECK(a.set_nodelay(true).error() == std::errc::operation_not_supported);
}

TEST_CASE("SocketAddress names Unix sockets by path or abstract name and refuses what does not fit") {
  CHECK(SocketAddress::unix_domain("/run/duet.sock")->to_string() == "/run/duet.sock");
  CHECK(SocketAddress::unix_domain("/run/duet.sock")->unix_path() == "/run/duet.sock");
  CHECK(SocketAddress::unix_domain("/run/duet.sock")->family() == AF_UNIX);
  CHECK(SocketAddress::unix_domain("@duet")->to_string() == "@duet");
  CHECK(SocketAddress::unix_domain("@duet")->unix_path().empty());
  CHECK(SocketAddress::unix_domain(std::string_view("\0duet", 5))->to_string() == "@duet");
  // The abstract name is exactly its bytes: no trailing NULs in the length.
  CHECK(SocketAddress::unix_domain("@duet")->size() == offsetof(sockaddr_un, sun_path) + 1 + 4);
  const std::string longest(sizeof(sockaddr_un::sun_path) - 1, 'a');
  CHECK(SocketAddress::unix_domain(longest).has_value());
  CHECK_FALSE(SocketAddress::unix_domain(longest + "a").has_value());
  CHECK_FALSE(SocketAddress::unix_domain("").has_value());
  CHECK_FALSE(SocketAddress::unix_domain("@").has_value());
  CHECK(SocketAddress::unix_domain("/x")->port() == 0);
}
