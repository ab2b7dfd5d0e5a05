// The interposed libc functions (see hook.hpp for the contract). Each one
// asks two questions: is fd a socket the hooks manage, and did the program
// want this call to block? If not, it is the real call, unchanged. If so, the
// real call runs on the (kernel-)non-blocking socket and EAGAIN turns into a
// wait — of the fiber on a fiber, of the thread elsewhere — then a retry.
// fcntl lives in hook_fcntl.cpp (it must be compiled without
// _FILE_OFFSET_BITS=64, which renames it to fcntl64), dup/dup2/dup3 in
// hook_dup.cpp.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>

#include "stackful/hook/fd_table.hpp"
#include "stackful/hook/hook.hpp"
#include "stackful/hook/real.hpp"
#include "stackful/hook/wait.hpp"

namespace duet::fiber::hook {

namespace {

enum class Direction { in, out };

// The kernel flag belongs to the open file description: every dup of fd sees it.
void make_kernel_nonblocking(int fd, const FdState& state) noexcept {
  const int flags = real().fcntl(fd, F_GETFL);
  if (flags >= 0 && real().fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0) {
    fd_table().set_nonblock(fd, state.user_nonblock, true);
  }
}

// A timeout of hundreds of years (saturated, see timeout_ns) is no deadline:
// now + ns would overflow the clock.
Deadline deadline_for(const FdState& state, Direction direction) noexcept {
  const std::int64_t ns = direction == Direction::in ? state.recv_timeout_ns.load() : state.send_timeout_ns.load();
  if (ns <= 0) return Deadline::max();
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::nanoseconds(ns) >= Deadline::max() - now) return Deadline::max();
  return now + std::chrono::nanoseconds(ns);
}

// SO_RCVTIMEO/SO_SNDTIMEO as Linux reads a timeval it accepted (tv_usec is in
// [0, 10^6), or the kernel said EDOM): {0, 0} is none; a negative tv_sec is a
// zero timeout, which makes the call fail at once (1 ns here, as 0 means none);
// a tv_sec whose nanoseconds do not fit in 63 bits saturates (292 years).
std::int64_t timeout_ns(const timeval& tv) noexcept {
  constexpr std::int64_t ns_per_s = 1'000'000'000;
  if (tv.tv_sec < 0) return 1;
  if (tv.tv_sec >= INT64_MAX / ns_per_s - 1) return INT64_MAX;
  return std::int64_t{tv.tv_sec} * ns_per_s + std::int64_t{tv.tv_usec} * 1'000;
}

// The state of fd if this call must be made to block on it, else nullptr.
FdState* blocking_state(int fd) noexcept {
  FdState* state = fd_table().get(fd);
  if (state == nullptr || state->user_nonblock) return nullptr;
  if (!state->kernel_nonblock && on_fiber()) make_kernel_nonblocking(fd, *state);
  return state->kernel_nonblock ? state : nullptr;  // a blocking kernel fd blocks by itself
}

template <typename Attempt>
auto blocking_call(int fd, Direction direction, Attempt attempt) noexcept -> decltype(attempt()) {
  FdState* state = blocking_state(fd);
  if (state == nullptr) return attempt();
  const Deadline deadline = deadline_for(*state, direction);
  const short events = direction == Direction::in ? POLLIN : POLLOUT;
  for (;;) {
    const auto n = attempt();
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    const int waited = wait_ready(fd, events, deadline);
    if (waited == -ETIMEDOUT) {
      errno = EAGAIN;  // what Linux reports when SO_RCVTIMEO/SO_SNDTIMEO expires
      return -1;
    }
    if (waited < 0 && waited != -EINTR) {
      errno = -waited;
      return -1;
    }
  }
}

bool fiber_managed(int fd) noexcept { return fd_table().get(fd) != nullptr; }

}  // namespace

}  // namespace duet::fiber::hook

using duet::fiber::hook::blocking_call;
using duet::fiber::hook::deadline_for;
using duet::fiber::hook::Direction;
using duet::fiber::hook::fd_table;
using duet::fiber::hook::on_fiber;
using duet::fiber::hook::real;

extern "C" {

int duet_hook_installed(void) { return real().read != nullptr ? 1 : 0; }

int socket(int domain, int type, int protocol) {
  const bool fiber = on_fiber();
  const bool user_nonblock = (type & SOCK_NONBLOCK) != 0;
  const int fd = real().socket(domain, fiber ? type | SOCK_NONBLOCK : type, protocol);
  if (fd >= 0) fd_table().adopt(fd, user_nonblock, fiber || user_nonblock);
  return fd;
}

int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  const bool fiber = on_fiber();
  if (!fiber && !duet::fiber::hook::fiber_managed(fd)) return real().accept4(fd, addr, len, flags);
  const int real_flags = fiber ? flags | SOCK_NONBLOCK : flags;
  const int conn = blocking_call(fd, Direction::in, [&] { return real().accept4(fd, addr, len, real_flags); });
  if (conn >= 0) fd_table().adopt(conn, (flags & SOCK_NONBLOCK) != 0, (real_flags & SOCK_NONBLOCK) != 0);
  return conn;
}

int accept(int fd, sockaddr* addr, socklen_t* len) { return accept4(fd, addr, len, 0); }

int connect(int fd, const sockaddr* addr, socklen_t len) {
  duet::fiber::hook::FdState* state = duet::fiber::hook::blocking_state(fd);
  if (state == nullptr) return real().connect(fd, addr, len);
  const int first = real().connect(fd, addr, len);
  if (first == 0 || errno != EINPROGRESS) return first;
  const int waited = duet::fiber::hook::wait_ready(fd, POLLOUT, deadline_for(*state, Direction::out));
  if (waited == -ETIMEDOUT) {
    errno = EINPROGRESS;  // Linux's answer when SO_SNDTIMEO cuts a connect short
    return -1;
  }
  if (waited < 0) {
    errno = -waited;
    return -1;
  }
  int error = 0;
  socklen_t size = sizeof error;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return -1;
  if (error != 0) {
    errno = error;
    return -1;
  }
  return 0;
}

ssize_t read(int fd, void* buf, size_t count) {
  return blocking_call(fd, Direction::in, [&] { return real().read(fd, buf, count); });
}

ssize_t write(int fd, const void* buf, size_t count) {
  return blocking_call(fd, Direction::out, [&] { return real().write(fd, buf, count); });
}

ssize_t readv(int fd, const iovec* iov, int count) {
  return blocking_call(fd, Direction::in, [&] { return real().readv(fd, iov, count); });
}

ssize_t writev(int fd, const iovec* iov, int count) {
  return blocking_call(fd, Direction::out, [&] { return real().writev(fd, iov, count); });
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().recv(fd, buf, len, flags);
  return blocking_call(fd, Direction::in, [&] { return real().recv(fd, buf, len, flags); });
}

ssize_t send(int fd, const void* buf, size_t len, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().send(fd, buf, len, flags);
  return blocking_call(fd, Direction::out, [&] { return real().send(fd, buf, len, flags); });
}

ssize_t recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* addr, socklen_t* addr_len) {
  if ((flags & MSG_DONTWAIT) != 0) return real().recvfrom(fd, buf, len, flags, addr, addr_len);
  return blocking_call(fd, Direction::in, [&] { return real().recvfrom(fd, buf, len, flags, addr, addr_len); });
}

ssize_t sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* addr, socklen_t addr_len) {
  if ((flags & MSG_DONTWAIT) != 0) return real().sendto(fd, buf, len, flags, addr, addr_len);
  return blocking_call(fd, Direction::out, [&] { return real().sendto(fd, buf, len, flags, addr, addr_len); });
}

ssize_t recvmsg(int fd, msghdr* msg, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().recvmsg(fd, msg, flags);
  return blocking_call(fd, Direction::in, [&] { return real().recvmsg(fd, msg, flags); });
}

ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().sendmsg(fd, msg, flags);
  return blocking_call(fd, Direction::out, [&] { return real().sendmsg(fd, msg, flags); });
}

int poll(pollfd* fds, nfds_t count, int timeout_ms) {
  if (!on_fiber()) return real().poll(fds, count, timeout_ms);
  return duet::fiber::hook::poll_fibered(fds, count, timeout_ms);
}

int close(int fd) {
  if (duet::fiber::hook::fiber_managed(fd)) return duet::fiber::hook::close_managed(fd);
  return real().close(fd);
}

// The timeout is recorded only once the kernel has taken it (it refuses a
// tv_usec out of range with EDOM), and for every dup of the socket.
int setsockopt(int fd, int level, int name, const void* value, socklen_t len) {
  const int result = real().setsockopt(fd, level, name, value, len);
  const bool timeout = level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO);
  if (result == 0 && timeout && len >= sizeof(timeval) && fd_table().get(fd) != nullptr) {
    const std::int64_t ns = duet::fiber::hook::timeout_ns(*static_cast<const timeval*>(value));
    fd_table().set_timeout(fd, name == SO_RCVTIMEO ? duet::fiber::hook::Timeout::recv
                                                   : duet::fiber::hook::Timeout::send, ns);
  }
  return result;
}

unsigned sleep(unsigned seconds) {
  if (!on_fiber()) return real().sleep(seconds);
  duet::fiber::hook::sleep_fibered(std::chrono::seconds(seconds));
  return 0;
}

int usleep(useconds_t micros) {
  if (!on_fiber()) return real().usleep(micros);
  duet::fiber::hook::sleep_fibered(std::chrono::microseconds(micros));
  return 0;
}

int nanosleep(const timespec* request, timespec* remaining) {
  if (!on_fiber() || request == nullptr) return real().nanosleep(request, remaining);
  duet::fiber::hook::sleep_fibered(std::chrono::seconds(request->tv_sec) + std::chrono::nanoseconds(request->tv_nsec));
  if (remaining != nullptr) *remaining = timespec{0, 0};
  return 0;
}

}  // extern "C"
