// duet::sys — the socket calls duet makes outside an IoOp, routed to the
// simulated network when the descriptor belongs to it.
//
// Contract
// - Each function behaves as the syscall of the same name (-1 and errno on
//   failure). On a thread with a SimWorld installed (io/sim_world.hpp),
//   socket() makes a simulated socket and the others act on simulated
//   descriptors (numbers from SimWorld::first_fd up, far above any real one);
//   a real descriptor always goes to the kernel.
// - Any thread; simulated descriptors only on their world's thread.
//
//   int fd = duet::sys::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
//   duet::sys::close(fd);
#pragma once

#include <sys/socket.h>

namespace duet::sys {

int socket(int family, int type) noexcept;
int close(int fd) noexcept;
int shutdown(int fd, int how) noexcept;
int bind(int fd, const sockaddr* addr, socklen_t len) noexcept;
int listen(int fd, int backlog) noexcept;
int connect(int fd, const sockaddr* addr, socklen_t len) noexcept;  // datagram sockets: records the peer
int getsockname(int fd, sockaddr* addr, socklen_t* len) noexcept;
int getpeername(int fd, sockaddr* addr, socklen_t* len) noexcept;
int setsockopt(int fd, int level, int name, const void* value, socklen_t len) noexcept;
int getsockopt(int fd, int level, int name, void* value, socklen_t* len) noexcept;

}  // namespace duet::sys
