// duet hook internals: waiting for a socket the way the calling context can.
//
// Contract
// - on_fiber(): the caller runs on a fiber of this thread's running scheduler
//   (the only place the hooks change behaviour).
// - wait_ready(fd, events, deadline): blocks until fd is ready for events
//   (POLLIN/POLLOUT) or the deadline passes; on a fiber by parking it on a
//   poll IoOp (other fibers run), elsewhere with the real poll(2). Returns 0
//   when ready, -ETIMEDOUT at the deadline, -errno on failure.
// - poll_fibered(fds, n, timeout_ms): poll(2) for a fiber: one poll IoOp per
//   fd, the fiber wakes at the first completion or the timeout, the other ops
//   are cancelled and waited out, then revents are filled by a real poll(…, 0).
// - sleep_fibered(ns): the calling fiber sleeps.
//
//   if (wait_ready(fd, POLLIN, deadline) == -ETIMEDOUT) { errno = EAGAIN; return -1; }
#pragma once

#include <poll.h>

#include <chrono>
#include <cstdint>

namespace duet::fiber::hook {

using Deadline = std::chrono::steady_clock::time_point;  // max() = none

bool on_fiber() noexcept;
int wait_ready(int fd, short events, Deadline deadline) noexcept;
int poll_fibered(pollfd* fds, nfds_t count, int timeout_ms) noexcept;
void sleep_fibered(std::chrono::nanoseconds duration) noexcept;
// Closes a managed fd through the scheduler's loop (so epoll forgets it).
int close_managed(int fd) noexcept;
// Makes this thread's loop forget fd (EventLoop::forget_fd: unregister it,
// cancel its pending ops) but leaves fd open, for dup2/dup3 to replace it
// atomically.
void forget_in_backend(int fd) noexcept;

}  // namespace duet::fiber::hook
