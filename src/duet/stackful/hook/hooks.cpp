// The interposed libc functions (see hook.hpp for the contract). Each one
// asks two questions: is fd a socket the hooks manage, and did the program
// want this call to block? If not, it is the real call, unchanged. If so, the
// real call runs on the (kernel-)non-blocking socket and EAGAIN turns into a
// wait — of the fiber on a fiber, of the thread elsewhere — then a retry.
// fcntl lives in hook_fcntl.cpp (it must be compiled without
// _FILE_OFFSET_BITS=64, which renames it to fcntl64), dup/dup2/dup3 in
// hook_dup.cpp, the transfers that must move every byte (write, writev, send*,
// recv*) in hook_transfer.cpp, select/pselect/ppoll/epoll_wait in
// hook_select.cpp.
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

#include "duet/stackful/hook/blocking.hpp"
#include "duet/stackful/hook/fd_table.hpp"
#include "duet/stackful/hook/hook.hpp"
#include "duet/stackful/hook/real.hpp"
#include "duet/stackful/hook/wait.hpp"

namespace duet::fiber::hook {

namespace {

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

bool fiber_managed(int fd) noexcept { return fd_table().get(fd) != nullptr; }

// An accepted socket has its listener's type (SOCK_STREAM or SOCK_SEQPACKET).
bool is_stream(int listener) noexcept {
  if (const FdState* state = fd_table().get(listener)) return state->stream;
  int type = 0;
  socklen_t len = sizeof type;
  return ::getsockopt(listener, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

}  // namespace

}  // namespace duet::fiber::hook

using duet::fiber::hook::blocking_call;
using duet::fiber::hook::deadline_for;
using duet::fiber::hook::forget_if_loop_knows;
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
  if (fd < 0) return fd;
  forget_if_loop_knows(fd);  // the loop's state for this number is an old file's (closed behind our back)
  fd_table().adopt(fd, user_nonblock, fiber || user_nonblock, (type & 0xf) == SOCK_STREAM);  // 0xf: SOCK_TYPE_MASK
  return fd;
}

int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  const bool fiber = on_fiber();
  if (!fiber && !duet::fiber::hook::fiber_managed(fd)) return real().accept4(fd, addr, len, flags);
  const int real_flags = fiber ? flags | SOCK_NONBLOCK : flags;
  const int conn = blocking_call(fd, Direction::in, [&] { return real().accept4(fd, addr, len, real_flags); });
  if (conn < 0) return conn;
  forget_if_loop_knows(conn);
  fd_table().adopt(conn, (flags & SOCK_NONBLOCK) != 0, (real_flags & SOCK_NONBLOCK) != 0,
                   duet::fiber::hook::is_stream(fd));
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

ssize_t readv(int fd, const iovec* iov, int count) {
  return blocking_call(fd, Direction::in, [&] { return real().readv(fd, iov, count); });
}

int poll(pollfd* fds, nfds_t count, int timeout_ms) {
  if (!on_fiber()) return real().poll(fds, count, timeout_ms);
  const auto timeout = timeout_ms < 0 ? duet::fiber::hook::forever : std::chrono::milliseconds(timeout_ms);
  return duet::fiber::hook::poll_fibered(fds, count, timeout, nullptr);
}

// Any fd the loop may know (poll hands it any fd) is forgotten there while
// the number still names its file: epoll's registration is keyed by fd and
// file, so EPOLL_CTL_DEL must come before the close, and after the close the
// kernel drops the registration only when the file's last fd goes (a dup may
// keep it). Either way a new file on the number would never be registered.
int close(int fd) {
  if (duet::fiber::hook::fiber_managed(fd)) return duet::fiber::hook::close_managed(fd);
  forget_if_loop_knows(fd);
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
  if (!duet::fiber::hook::valid_timespec(*request)) {
    errno = EINVAL;
    return -1;
  }
  duet::fiber::hook::sleep_fibered(duet::fiber::hook::duration_of(*request));
  if (remaining != nullptr) *remaining = timespec{0, 0};
  return 0;
}

// Returns the error (not -1 and errno), as POSIX has it. A clock that is not
// a wall or monotonic one (a CPU-time clock) is the real call: it blocks the
// thread.
int clock_nanosleep(clockid_t clock, int flags, const timespec* request, timespec* remaining) {
  const bool fiber_clock = clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME || clock == CLOCK_BOOTTIME;
  if (!on_fiber() || request == nullptr || !fiber_clock) {
    return real().clock_nanosleep(clock, flags, request, remaining);
  }
  if (!duet::fiber::hook::valid_timespec(*request)) return EINVAL;
  auto duration = duet::fiber::hook::duration_of(*request);
  if ((flags & TIMER_ABSTIME) != 0) {
    timespec now{};
    ::clock_gettime(clock, &now);
    duration -= duet::fiber::hook::duration_of(now);
  } else if (remaining != nullptr) {
    *remaining = timespec{0, 0};
  }
  if (duration > duration.zero()) duet::fiber::hook::sleep_fibered(duration);
  return 0;
}

}  // extern "C"
