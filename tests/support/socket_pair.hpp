// A connected pair of non-blocking AF_UNIX stream sockets, closed on scope exit:
// fds[0] is the side under test, fds[1] the peer the test writes from.
//
//   duet::test::SocketPair pair;
//   pair.write("ping");   // arrives on pair.fds[0]
#pragma once

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <string_view>

namespace duet::test {

struct SocketPair {
  int fds[2] = {-1, -1};
  SocketPair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0); }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  SocketPair(SocketPair&&) = delete;
  SocketPair& operator=(SocketPair&&) = delete;
  ~SocketPair() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  void write(std::string_view s) const {
    REQUIRE(::write(fds[1], s.data(), s.size()) == static_cast<ssize_t>(s.size()));
  }
};

}  // namespace duet::test
