// Socket calls that do not wait, shared by both voices' TcpListener and
// TcpStream, so the stackless and stackful types differ only in how they wait.
//
// Contract
// - open_listener: a non-blocking, close-on-exec listening socket with
//   SO_REUSEADDR (+ SO_REUSEPORT on request); IPv6 listeners are IPv6-only so
//   "::" and "0.0.0.0" can be bound side by side. Throws std::system_error.
//   For a Unix domain path it first removes a stale socket file there
//   (UnixSocketFile::clear_stale: only one nobody accepts on; over a live
//   server's socket it throws EADDRINUSE, and never deletes a regular file:
//   bind then fails with EADDRINUSE. Redis unlinks whatever the path names),
//   and after bind applies ListenOptions::unix_mode, before listen, so no
//   client connects earlier. ListenOptions::bind_retry > 0 retries the whole
//   opening on EADDRINUSE until it passes. The overload with a UnixSocketFile
//   hands the new file to the caller, to remove at close; the other leaves it.
// - A port free at exit: duet holds no kernel reference to a listening
//   socket beyond its fd (io_uring accepts poll an epoll set holding it:
//   io/uring_accept.cpp), so its port is free once the listener is closed,
//   or the process is gone however it ended (exit, SIGTERM, SIGKILL), on
//   both backends. What duet cannot vouch for, where bind_retry helps: a
//   copy of the fd elsewhere (a fork()ed child still running, a dup), an
//   op of your own on the listener through the loop (OpKind::poll on
//   io_uring holds its file until the ring's teardown, which the kernel
//   runs after exit), io_uring when no epoll set can be made (out of fds:
//   the accept falls back on IORING_OP_ACCEPT, with that same hold), and
//   an old server still shutting down in another process.
// - open_datagram_socket: a non-blocking, close-on-exec SOCK_DGRAM socket,
//   bound when given an address (IPv6 ones IPv6-only). Throws std::system_error.
// - The others are thin, non-throwing wrappers returning values. Any thread.
//
//   UniqueFd fd = duet::open_listener(SocketAddress::parse("127.0.0.1", 0).value(), {});
//   SocketAddress bound = duet::local_address_of(fd.get());
#pragma once

#include <chrono>
#include <functional>

#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/unique_fd.hpp"
#include "duet/io/unix_socket_file.hpp"

namespace duet {

struct ListenOptions {
  int backlog = 1024;
  bool reuse_port = false;  // SO_REUSEPORT: several listeners (one per thread) share a port
  unsigned unix_mode = 0;   // AF_UNIX path: chmod after bind (e.g. 0700); 0 keeps what the umask gave
  // > 0: while the address is in use (EADDRINUSE), try again with short
  // sleeps (5 ms doubling to 250 ms) for up to this long, then throw. The
  // calling thread sleeps meanwhile: a start-up option, for a server that a
  // supervisor restarts at once while the old process's socket may still be
  // open (the contract, "A port free at exit"). 0: fail at once.
  std::chrono::milliseconds bind_retry{0};
};

struct DatagramOptions {
  bool reuse_port = false;  // SO_REUSEPORT: several sockets (one per thread) share a port
};

[[nodiscard]] UniqueFd open_listener(const SocketAddress& addr, const ListenOptions& options);
[[nodiscard]] UniqueFd open_listener(const SocketAddress& addr, const ListenOptions& options, UnixSocketFile& file);

// ListenOptions::bind_retry's loop, for other ways to bind (ConnectionSpreader's
// probe): calls attempt() until it does not throw EADDRINUSE, for up to budget
// (0: once), sleeping in between; then throws "bind ADDR: still could not
// bind() after N ms". Any other exception passes through at once.
void retry_while_in_use(const SocketAddress& addr, std::chrono::milliseconds budget,
                        const std::function<void()>& attempt);

// Unbound (the kernel picks a port on first send or connect) for family
// AF_INET / AF_INET6 / AF_UNIX, or bound to addr.
[[nodiscard]] UniqueFd open_datagram_socket(int family);
[[nodiscard]] UniqueFd open_datagram_socket(const SocketAddress& addr, const DatagramOptions& options);
// connect(2) on a datagram socket only records the peer: it never waits.
IoResult<void> connect_datagram(int fd, const SocketAddress& peer) noexcept;

// What duet does to every stream it connects or accepts: TCP_NODELAY on IP
// (request/response traffic: Nagle plus delayed ACK would add 40 ms stalls);
// nothing on AF_UNIX, which has no Nagle.
void tune_new_stream(int fd, int family) noexcept;

IoResult<void> shutdown_socket(int fd, int how) noexcept;
IoResult<void> set_tcp_nodelay(int fd, bool on) noexcept;
[[nodiscard]] SocketAddress local_address_of(int fd) noexcept;
[[nodiscard]] SocketAddress peer_address_of(int fd) noexcept;

}  // namespace duet
