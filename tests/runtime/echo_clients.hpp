// Blocking loopback clients for the sharded echo tests (the library seam in
// tests/runtime and the example programs in tests/examples): open n
// connections to 127.0.0.1:port, each sending its own line and reading it
// back, with a 5 s receive timeout so a lost connection fails, never hangs.
//
//   auto conns = duet::test::open_echoed(port, 32);   // each has echoed once
//   CHECK(conns.size() == 32);
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "duet/io/unique_fd.hpp"

namespace duet::test {

inline UniqueFd connect_loopback(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const timeval timeout{5, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return UniqueFd();
  return fd;
}

// True when line came back whole.
inline bool echoes(int fd, const std::string& line) {
  ssize_t sent = 0;
  do {
    sent = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent != static_cast<ssize_t>(line.size())) return false;
  std::string got;
  char buf[256];
  while (got.size() < line.size()) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;  // a signal meant for another test's thread
    if (n <= 0) return false;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got == line;
}

// The connections that connected and echoed; the test compares the count.
inline std::vector<UniqueFd> open_echoed(std::uint16_t port, int n) {
  std::vector<UniqueFd> conns;
  for (int i = 0; i < n; ++i) {
    UniqueFd fd = connect_loopback(port);
    if (fd && echoes(fd.get(), "line " + std::to_string(i) + "\n")) conns.push_back(std::move(fd));
  }
  return conns;
}

}  // namespace duet::test
