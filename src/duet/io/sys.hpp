// duet::sys — the socket and file calls duet makes outside an IoOp, routed
// to the simulated network and file system when a SimWorld is installed.
//
// Contract
// - Each function behaves as the syscall of the same name (-1 and errno on
//   failure). On a thread with a SimWorld installed (io/sim_world.hpp),
//   socket() makes a simulated socket, open/rename/unlink act on the
//   simulated file system (io/sim/sim_fs.hpp: what is not fsynced is lost in
//   a crash), and the others act on simulated descriptors (numbers from
//   SimWorld::first_fd up, far above any real one); a real descriptor always
//   goes to the kernel.
// - Any thread; simulated descriptors only on their world's thread.
//
//   int fd = duet::sys::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
//   duet::sys::close(fd);
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>

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

int open(const char* path, int flags, mode_t mode = 0) noexcept;
ssize_t pread(int fd, void* buf, std::size_t len, off_t offset) noexcept;
ssize_t pwrite(int fd, const void* buf, std::size_t len, off_t offset) noexcept;
int fsync(int fd) noexcept;
int fdatasync(int fd) noexcept;
int ftruncate(int fd, off_t size) noexcept;
off_t file_size(int fd) noexcept;  // fstat's st_size, or -1 and errno
int rename(const char* from, const char* to) noexcept;
int unlink(const char* path) noexcept;

}  // namespace duet::sys
