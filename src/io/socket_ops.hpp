// Socket calls that do not wait, shared by both voices' TcpListener and
// TcpStream, so the stackless and stackful types differ only in how they wait.
//
// Contract
// - open_listener: a non-blocking, close-on-exec listening socket with
//   SO_REUSEADDR (+ SO_REUSEPORT on request); IPv6 listeners are IPv6-only so
//   "::" and "0.0.0.0" can be bound side by side. Throws std::system_error.
// - The others are thin, non-throwing wrappers returning values. Any thread.
//
//   UniqueFd fd = duet::open_listener(SocketAddress::parse("127.0.0.1", 0).value(), {});
//   SocketAddress bound = duet::local_address_of(fd.get());
#pragma once

#include "io/io_result.hpp"
#include "io/socket_address.hpp"
#include "io/unique_fd.hpp"

namespace duet {

struct ListenOptions {
  int backlog = 1024;
  bool reuse_port = false;  // SO_REUSEPORT: several listeners (one per thread) share a port
};

[[nodiscard]] UniqueFd open_listener(const SocketAddress& addr, const ListenOptions& options);

IoResult<void> shutdown_socket(int fd, int how) noexcept;
IoResult<void> set_tcp_nodelay(int fd, bool on) noexcept;
[[nodiscard]] SocketAddress local_address_of(int fd) noexcept;
[[nodiscard]] SocketAddress peer_address_of(int fd) noexcept;

}  // namespace duet
