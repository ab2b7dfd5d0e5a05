// The pieces of a hooked blocking call (see blocking.hpp): which calls block,
// until when, and the wait after each EAGAIN.
#include "duet/stackful/hook/blocking.hpp"

#include <fcntl.h>
#include <poll.h>

#include <chrono>
#include <cstdint>

#include "duet/stackful/hook/real.hpp"

namespace duet::fiber::hook {

namespace {

// The kernel flag belongs to the open file description: every dup of fd sees it.
void make_kernel_nonblocking(int fd, const FdState& state) noexcept {
  const int flags = real().fcntl(fd, F_GETFL);
  if (flags >= 0 && real().fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0) {
    fd_table().set_nonblock(fd, state.user_nonblock, true);
  }
}

}  // namespace

FdState* blocking_state(int fd) noexcept {
  FdState* state = fd_table().get(fd);
  if (state == nullptr || state->user_nonblock) return nullptr;
  if (!state->kernel_nonblock && on_fiber()) make_kernel_nonblocking(fd, *state);
  return state->kernel_nonblock ? state : nullptr;  // a blocking kernel fd blocks by itself
}

// A timeout of hundreds of years (saturated, see timeout_ns in hooks.cpp) is
// no deadline: now + ns would overflow the clock.
Deadline deadline_for(const FdState& state, Direction direction) noexcept {
  const std::int64_t ns = direction == Direction::in ? state.recv_timeout_ns.load() : state.send_timeout_ns.load();
  if (ns <= 0) return Deadline::max();
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::nanoseconds(ns) >= Deadline::max() - now) return Deadline::max();
  return now + std::chrono::nanoseconds(ns);
}

bool wait_again(int fd, Direction direction, Deadline deadline) noexcept {
  const int waited = wait_ready(fd, direction == Direction::in ? POLLIN : POLLOUT, deadline);
  if (waited == 0 || waited == -EINTR) return true;
  errno = waited == -ETIMEDOUT ? EAGAIN : -waited;  // EAGAIN: what Linux says when SO_*TIMEO expires
  return false;
}

}  // namespace duet::fiber::hook
