// duet hook internals: waiting for a socket the way the calling context can.
//
// Contract
// - on_fiber(): the caller runs on a fiber of this thread's running scheduler
//   (the only place the hooks change behaviour).
// - wait_ready(fd, events, deadline): blocks until fd is ready for events
//   (POLLIN/POLLOUT) or the deadline passes; on a fiber by parking it on a
//   poll IoOp (other fibers run), elsewhere with the real poll(2). Returns 0
//   when ready, -ETIMEDOUT at the deadline, -errno on failure.
// - poll_fibered(fds, n, timeout, mask): poll(2) for a fiber (ppoll's with a
//   mask): a first real look with timeout 0 (ppoll's with the mask, so a
//   signal the mask unblocks is taken there: EINTR), then one poll IoOp per
//   fd; the fiber wakes at the first completion or the timeout (negative:
//   forever), the other ops are cancelled and waited out, and revents are
//   filled by a real poll(…, 0). No fd to watch: a sleep (forever: the fiber
//   never returns, as poll(NULL, 0, -1) is a pause). While the fiber waits the
//   thread's own signal mask stays in force. Each fd is noted in the fd table
//   as one the loop may know (close must then make it forget).
// - sleep_fibered(ns): the calling fiber sleeps.
// - valid_timespec(t): the kernel's rule for a timeout or sleep (nanosleep,
//   ppoll, pselect): tv_sec >= 0, tv_nsec in [0, 10^9); else EINVAL.
//   duration_of(t): t as nanoseconds, saturated at a century (so that now +
//   it cannot overflow the clock).
// - forget_if_loop_knows(fd): forget_in_backend(fd) if fd is managed or the
//   hooks handed the number to this thread's loop; for close and dup2 (before
//   they replace fd's file) and for a new socket (its number's old state).
//
//   if (wait_ready(fd, POLLIN, deadline) == -ETIMEDOUT) { errno = EAGAIN; return -1; }
#pragma once

#include <poll.h>
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdint>

namespace duet::fiber::hook {

using Deadline = std::chrono::steady_clock::time_point;  // max() = none

bool on_fiber() noexcept;
int wait_ready(int fd, short events, Deadline deadline) noexcept;
inline constexpr std::chrono::nanoseconds forever{-1};
int poll_fibered(pollfd* fds, nfds_t count, std::chrono::nanoseconds timeout, const sigset_t* mask) noexcept;
void sleep_fibered(std::chrono::nanoseconds duration) noexcept;

inline bool valid_timespec(const timespec& t) noexcept {
  return t.tv_sec >= 0 && t.tv_nsec >= 0 && t.tv_nsec < 1'000'000'000;
}
inline std::chrono::nanoseconds duration_of(const timespec& t) noexcept {
  constexpr std::int64_t century = 100LL * 365 * 24 * 3600;
  return std::chrono::seconds(t.tv_sec < century ? t.tv_sec : century) + std::chrono::nanoseconds(t.tv_nsec);
}
// Closes a managed fd through the scheduler's loop (so epoll forgets it).
int close_managed(int fd) noexcept;
// Makes this thread's loop forget fd (EventLoop::forget_fd: unregister it,
// cancel its pending ops) but leaves fd open, for dup2/dup3 to replace it
// atomically.
void forget_in_backend(int fd) noexcept;
void forget_if_loop_knows(int fd) noexcept;

}  // namespace duet::fiber::hook
