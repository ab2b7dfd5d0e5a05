// libduet_hook: plain blocking POSIX socket code (socket, connect, accept,
// read, write, poll, close, sleep) run unmodified on fibers, on both backends;
// the program's own O_NONBLOCK and SO_RCVTIMEO honoured; pass-through outside
// fibers and for regular files.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "hook/hook_support.hpp"
#include "duet/stackful/hook/hook.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::fiber::Scheduler;
namespace fiber = duet::fiber;

namespace {

using Clock = std::chrono::steady_clock;
using duet::test::blocking_connect;
using duet::test::blocking_listener;
using duet::test::kernel_flags;
using duet::test::read_n;
using duet::test::write_all;

}  // namespace

TEST_CASE("the hook library is linked and has found libc underneath") { CHECK(duet_hook_installed() == 1); }

TEST_CASE("plain blocking clients and a blocking server share one thread as fibers") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  Scheduler scheduler({.backend = backend, .stack_size = 64 * 1024});
  constexpr int clients = 50;
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  int echoed = 0;
  auto server = scheduler.spawn([&] {
    for (int i = 0; i < clients; ++i) {
      const int conn = ::accept(listener, nullptr, nullptr);  // blocks this fiber only
      REQUIRE(conn >= 0);
      fiber::spawn([conn] {
        char buf[256];
        for (ssize_t n; (n = ::read(conn, buf, sizeof buf)) > 0;) {
          if (::write(conn, buf, static_cast<std::size_t>(n)) != n) break;
        }
        ::close(conn);
      }).detach();
    }
  });
  for (int i = 0; i < clients; ++i) {
    scheduler.spawn([&, i] {
      const int fd = blocking_connect(port);
      REQUIRE(fd >= 0);
      const std::string msg = "hello from client " + std::to_string(i);
      REQUIRE(write_all(fd, msg));
      if (read_n(fd, msg.size()) == msg) ++echoed;
      ::close(fd);
    }).detach();
  }
  server.join();
  scheduler.run();
  ::close(listener);
  CHECK(echoed == clients);
  CHECK(scheduler.loop().in_flight() == 0);
}

TEST_CASE("outside any fiber the hooked calls are the real blocking calls") {
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  CHECK((kernel_flags(listener) & O_NONBLOCK) == 0);  // not touched off fibers
  const int client = blocking_connect(port);
  REQUIRE(client >= 0);
  const int server = ::accept(listener, nullptr, nullptr);
  REQUIRE(server >= 0);
  CHECK(write_all(client, "plain"));
  CHECK(read_n(server, 5) == "plain");
  CHECK((kernel_flags(client) & O_NONBLOCK) == 0);
  ::close(client);
  ::close(server);
  ::close(listener);
}

TEST_CASE("regular files pass through the hooks, on a fiber too") {
  char path[] = "/tmp/duet_hook_testXXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  Scheduler scheduler;
  auto f = scheduler.spawn([fd] {
    if (::write(fd, "file data", 9) != 9) return std::string("write failed");
    ::lseek(fd, 0, SEEK_SET);
    char buf[16] = {};
    const ssize_t n = ::read(fd, buf, sizeof buf);
    return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  });
  CHECK(f.join() == "file data");
  CHECK(::close(fd) == 0);
  ::unlink(path);
}

TEST_CASE("a socket the program made non-blocking keeps returning EAGAIN on a fiber") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  Scheduler scheduler({.backend = backend});
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  auto f = scheduler.spawn([&] {
    const int fd = blocking_connect(port);
    const int server = ::accept(listener, nullptr, nullptr);
    CHECK((::fcntl(fd, F_GETFL) & O_NONBLOCK) == 0);   // the program's view: blocking
    CHECK((kernel_flags(fd) & O_NONBLOCK) != 0);        // the kernel's: non-blocking
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    CHECK((::fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
    char buf[8];
    errno = 0;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    const bool eagain = n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // blocking again: the fiber waits
    auto writer = fiber::spawn([server] {
      fiber::yield();
      return ::write(server, "late", 4);
    });
    const std::string got = read_n(fd, 4);
    writer.join();
    ::close(fd);
    ::close(server);
    return eagain && got == "late";
  });
  CHECK(f.join());
  ::close(listener);
}

TEST_CASE("SO_RCVTIMEO becomes a timeout that blocks only the fiber") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  Scheduler scheduler({.backend = backend});
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  int ticks = 0;
  auto reader = scheduler.spawn([&] {
    const int fd = blocking_connect(port);
    const int server = ::accept(listener, nullptr, nullptr);
    const timeval timeout{0, 50'000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buf[8];
    const auto start = Clock::now();
    errno = 0;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    const auto waited = Clock::now() - start;
    const bool timed_out = n == -1 && errno == EAGAIN;
    ::close(fd);
    ::close(server);
    return timed_out && waited >= 45ms && waited < 2s;
  });
  auto ticker = scheduler.spawn([&] {
    for (int i = 0; i < 3; ++i) {
      ::usleep(5'000);
      ++ticks;
    }
  });
  CHECK(reader.join());
  ticker.join();
  CHECK(ticks == 3);  // the ticker ran while the reader waited
  ::close(listener);
}

TEST_CASE("a SO_RCVTIMEO the kernel refuses leaves the timeout in force unchanged") {
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    const timeval short_timeout{0, 50'000};
    CHECK(::setsockopt(c.client, SOL_SOCKET, SO_RCVTIMEO, &short_timeout, sizeof short_timeout) == 0);
    const timeval out_of_range{0, 1'500'000};  // tv_usec >= 1,000,000: Linux says EDOM
    errno = 0;
    CHECK(::setsockopt(c.client, SOL_SOCKET, SO_RCVTIMEO, &out_of_range, sizeof out_of_range) == -1);
    CHECK(errno == EDOM);
    const auto read = duet::test::timed_read(c.client);  // the kernel still has 50 ms, so must the hooks
    CHECK(read.n == -1);
    CHECK(read.error == EAGAIN);
    CHECK(read.waited >= 45ms);
    CHECK(read.waited < 1s);
    c.close();
  });
}

namespace {

// A read with this receive timeout, while the peer writes 4 bytes 300 ms later.
duet::test::TimedRead read_with_timeout(const duet::test::Connection& c, timeval timeout) {
  CHECK(::setsockopt(c.client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0);
  auto writer = duet::test::write_later(c.server, "late", 300ms);
  const auto read = duet::test::timed_read(c.client);
  CHECK(writer.join() == 4);
  return read;
}

}  // namespace

TEST_CASE("a SO_RCVTIMEO too long to count in nanoseconds waits like no timeout at all") {
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    // 4,092 years: the kernel takes it (as "forever"); times 10^9 it wraps a
    // 64-bit count to 33 ms, which a naive conversion would wait instead.
    const auto read = read_with_timeout(c, timeval{129'127'208'516, 0});
    CHECK(read.n == 4);
    CHECK(read.waited >= 250ms);
    c.close();
  });
}

TEST_CASE("a SO_RCVTIMEO with a negative tv_sec makes a read fail at once, as Linux does") {
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    const auto read = read_with_timeout(c, timeval{-1, 0});  // the kernel's zero timeout: EAGAIN at once
    CHECK(read.n == -1);
    CHECK(read.error == EAGAIN);
    CHECK(read.waited < 150ms);
    c.close();
  });
}

TEST_CASE("sleep, usleep and nanosleep on fibers sleep the fiber, not the thread") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  Scheduler scheduler({.backend = backend});
  const auto start = Clock::now();
  std::vector<fiber::Fiber<void>> sleepers;
  for (int i = 0; i < 10; ++i) {
    sleepers.push_back(scheduler.spawn([i] {
      if (i % 2 == 0) {
        ::usleep(100'000);
      } else {
        const timespec t{0, 100'000'000};
        ::nanosleep(&t, nullptr);
      }
    }));
  }
  for (auto& s : sleepers) s.join();
  const auto elapsed = Clock::now() - start;
  CHECK(elapsed >= 95ms);
  CHECK(elapsed < 600ms);  // ten 100 ms sleeps overlapped
}

TEST_CASE("poll on a fiber waits for the socket while other fibers run") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  Scheduler scheduler({.backend = backend});
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  auto f = scheduler.spawn([&] {
    const int fd = blocking_connect(port);
    const int server = ::accept(listener, nullptr, nullptr);
    pollfd p{fd, POLLIN, 0};
    const int none = ::poll(&p, 1, 20);  // times out: nothing sent yet
    auto writer = fiber::spawn([server] { return ::write(server, "x", 1); });
    p.revents = 0;
    const int one = ::poll(&p, 1, 5000);
    writer.join();
    ::close(fd);
    ::close(server);
    return none == 0 && one == 1 && (p.revents & POLLIN) != 0;
  });
  CHECK(f.join());
  ::close(listener);
}

TEST_CASE("duet's own fiber sockets work unchanged with the hooks loaded") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  Scheduler scheduler({.backend = backend});
  auto f = scheduler.spawn([] {
    auto listener = fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 0).value());
    auto acceptor = fiber::spawn([&listener] { return listener.accept(); });
    auto client = fiber::TcpStream::connect(listener.local_address());
    auto server = acceptor.join();
    if (!client || !server) return std::string("connect failed");
    (void)client->send_all(std::string_view("both"));
    char buf[8];
    auto n = server->recv(buf, 2s);
    return n ? std::string(buf, *n) : n.error().message();
  });  // the streams close through the loop, and through the hooked close
  CHECK(f.join() == "both");
  CHECK(scheduler.loop().in_flight() == 0);
}

// close_fd cancels what waits on the fd; a program blocked in read() must see
// what a read of a closed fd gives (EBADF), not the loop's ECANCELED.
TEST_CASE("a read blocked on a socket that another fiber closes fails with EBADF") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  Scheduler scheduler({.backend = backend, .stack_size = 64 * 1024});
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  int fd = -1;
  ssize_t got = 0;
  int error = 0;
  auto reader = scheduler.spawn([&] {
    fd = blocking_connect(port);
    REQUIRE(fd >= 0);
    char byte = 0;
    got = ::read(fd, &byte, 1);  // nobody writes: only the close ends it
    error = errno;
  });
  scheduler.spawn([&] {
    fiber::sleep_for(50ms);
    ::close(fd);
  }).detach();
  reader.join();
  scheduler.run();
  ::close(listener);
  CHECK(got == -1);
  CHECK(error == EBADF);
}

// A blocking stream socket moves every byte asked for, as Linux's does: the
// kernel-non-blocking socket under the hooks must not leak its short counts.
TEST_CASE("recv or recvmsg with MSG_WAITALL on a blocking socket returns all 100 bytes sent in two halves") {
  const bool use_recvmsg = GENERATE(false, true);
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [=](int listener, std::uint16_t port) {
    INFO((use_recvmsg ? "recvmsg" : "recv"));
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    auto writer = fiber::spawn([fd = c.server] {
      const bool first = write_all(fd, std::string(50, 'x'));
      fiber::sleep_for(20ms);
      return first && write_all(fd, std::string(50, 'y'));
    });
    char buf[100];
    iovec iov[2] = {{buf, 30}, {buf + 30, 70}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    const ssize_t n =
        use_recvmsg ? ::recvmsg(c.client, &msg, MSG_WAITALL) : ::recv(c.client, buf, sizeof buf, MSG_WAITALL);
    CHECK(writer.join());
    REQUIRE(n == 100);
    CHECK(std::string(buf, 100) == std::string(50, 'x') + std::string(50, 'y'));
    c.close();
  });
}

TEST_CASE("recv with MSG_WAITALL returns what came when SO_RCVTIMEO expires or the peer closes") {
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    const timeval timeout{0, 30'000};
    ::setsockopt(c.client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    REQUIRE(write_all(c.server, "half"));
    char buf[8];
    CHECK(::recv(c.client, buf, sizeof buf, MSG_WAITALL) == 4);  // the timeout, after 4 bytes
    REQUIRE(write_all(c.server, "end"));
    ::shutdown(c.server, SHUT_WR);
    CHECK(::recv(c.client, buf, sizeof buf, MSG_WAITALL) == 3);  // EOF after 3
    c.close();
  });
}

namespace {

// The peer of a big write: starts reading late, then reads up to EOF.
auto slow_reader(int fd) {
  return fiber::spawn([fd] {
    fiber::sleep_for(20ms);
    std::vector<char> buf(1 << 16);
    std::size_t total = 0;
    bool pattern = true;
    for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) > 0;) {
      for (ssize_t i = 0; i < n; ++i) pattern = pattern && buf[static_cast<std::size_t>(i)] == char((total + i) % 251);
      total += static_cast<std::size_t>(n);
    }
    return pattern ? total : 0;
  });
}

std::vector<char> patterned(std::size_t size) {
  std::vector<char> data(size);
  for (std::size_t i = 0; i < size; ++i) data[i] = char(i % 251);
  return data;
}

}  // namespace

TEST_CASE("one blocking write, writev or sendmsg of several MiB to a slow reader returns the full count") {
  const int call = GENERATE(0, 1, 2);
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [call](int listener, std::uint16_t port) {
    INFO("call " << (call == 0 ? "write" : call == 1 ? "writev" : "sendmsg"));
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    auto reader = slow_reader(c.server);
    const std::vector<char> data = patterned(6 << 20);
    const std::size_t half = data.size() / 2 + 1;
    iovec iov[3] = {{const_cast<char*>(data.data()), half}, {nullptr, 0},
                    {const_cast<char*>(data.data()) + half, data.size() - half}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 3;
    const ssize_t n = call == 0   ? ::write(c.client, data.data(), data.size())
                      : call == 1 ? ::writev(c.client, iov, 3)
                                  : ::sendmsg(c.client, &msg, 0);
    ::shutdown(c.client, SHUT_WR);
    CHECK(n == static_cast<ssize_t>(data.size()));
    CHECK(reader.join() == data.size());
    c.close();
  });
}

TEST_CASE("a blocking send cut short by SO_SNDTIMEO returns the bytes it sent") {
  duet::test::on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const duet::test::Connection c = duet::test::connect_to(listener, port);
    const timeval timeout{0, 30'000};
    ::setsockopt(c.client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const std::vector<char> data(16 << 20, 'z');  // more than loopback buffers hold: nobody reads
    const ssize_t n = ::send(c.client, data.data(), data.size(), 0);
    CHECK(n > 0);
    CHECK(n < static_cast<ssize_t>(data.size()));
    // Once the buffers are full (they may still grow a little: autotuning),
    // a send that moves nothing before the timeout fails with EAGAIN.
    ssize_t more = 0;
    for (int tries = 0; tries < 20 && more >= 0; ++tries) {
      errno = 0;
      more = ::send(c.client, data.data(), data.size(), 0);
    }
    CHECK(more == -1);
    CHECK(errno == EAGAIN);
    c.close();
  });
}
