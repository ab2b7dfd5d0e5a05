// Plain blocking POSIX socket code for the hook tests, as a library written
// without fibers in mind would have it: every call below goes through the hooks.
//
//   std::uint16_t port = 0;
//   const int listener = duet::test::blocking_listener(port);   // 127.0.0.1, any port
//   const int fd = duet::test::blocking_connect(port);
//   duet::test::write_all(fd, "ping");
//   duet::test::on_fiber(Backend::epoll, [](int listener, std::uint16_t port) {
//     const duet::test::Connection c = duet::test::connect_to(listener, port);
//   });
//   auto writer = duet::test::write_later(server, "x", 50ms);   // on a fiber
//   auto [n, error, waited] = duet::test::timed_read(fd);        // waited >= 50 ms
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "duet/io/backend.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace duet::test {

inline int blocking_listener(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 128) == 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

inline int blocking_connect(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

inline std::string read_n(int fd, std::size_t want) {
  std::string got;
  char buf[4096];
  while (got.size() < want) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

// The flags as the kernel has them, past the hooked fcntl.
inline int kernel_flags(int fd) { return static_cast<int>(::syscall(SYS_fcntl, fd, F_GETFL)); }

// A loopback connection whose client end was made on a fiber by the hooked
// socket/connect (a managed, blocking socket); server is the accepted end.
struct Connection {
  int client = -1;
  int server = -1;
  void close() const {
    ::close(client);
    ::close(server);
  }
};

inline Connection connect_to(int listener, std::uint16_t port) {
  Connection c;
  c.client = blocking_connect(port);
  c.server = ::accept(listener, nullptr, nullptr);
  REQUIRE(c.client >= 0);
  REQUIRE(c.server >= 0);
  return c;
}

// Runs body(listener, port) on a fiber of a scheduler on `backend`, with a
// listener on 127.0.0.1; checks that no I/O is left in flight.
template <typename Body>
void on_fiber(Backend backend, Body body) {
  INFO("backend " << duet::backend_name(backend));
  duet::fiber::Scheduler scheduler({.backend = backend});
  std::uint16_t port = 0;
  const int listener = blocking_listener(port);
  scheduler.spawn([&] { body(listener, port); }).join();
  CHECK(scheduler.loop().in_flight() == 0);
  ::close(listener);
}

// On a fiber: a fiber that writes `text` to fd after `delay`, so a read that
// returns it must have waited for it.
inline auto write_later(int fd, std::string text, std::chrono::milliseconds delay) {
  return duet::fiber::spawn([fd, text = std::move(text), delay] {
    duet::fiber::sleep_for(delay);
    return ::write(fd, text.data(), text.size());
  });
}

// One read(2) of up to 8 bytes: its result, errno, and how long it took.
struct TimedRead {
  ssize_t n = 0;
  int error = 0;
  std::chrono::steady_clock::duration waited{};
};

inline TimedRead timed_read(int fd) {
  char buf[8];
  const auto start = std::chrono::steady_clock::now();
  errno = 0;
  TimedRead result;
  result.n = ::read(fd, buf, sizeof buf);
  result.error = errno;
  result.waited = std::chrono::steady_clock::now() - start;
  return result;
}

}  // namespace duet::test
