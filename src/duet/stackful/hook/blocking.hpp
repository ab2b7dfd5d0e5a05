// duet hook internals: how a hooked call blocks on a managed socket.
//
// Contract
// - blocking_state(fd): fd's state if this call must be made to block on it
//   (a managed socket the program left blocking, non-blocking in the kernel:
//   turned so here on a fiber), else nullptr (the real call does what the
//   program asked by itself).
// - deadline_for(state, direction): now + SO_RCVTIMEO (in) or SO_SNDTIMEO
//   (out), or Deadline::max() for none. Taken once per call: Linux's timeout
//   bounds the whole call, not each wait inside it.
// - wait_again(fd, direction, deadline), after an EAGAIN: waits for fd (the
//   fiber, or the thread off fibers); false when the call must give up, with
//   errno set (EAGAIN at the deadline, as Linux reports an expired timeout).
// - blocking_call(fd, direction, attempt): attempt() until it does not say
//   EAGAIN, waiting in between; its first result otherwise (one transfer, one
//   accept). hook_transfer.cpp builds the all-bytes loops of stream sockets on
//   the same pieces.
//
//   return blocking_call(fd, Direction::in, [&] { return real().read(fd, buf, count); });
#pragma once

#include <cerrno>

#include "duet/stackful/hook/fd_table.hpp"
#include "duet/stackful/hook/wait.hpp"

namespace duet::fiber::hook {

enum class Direction { in, out };

FdState* blocking_state(int fd) noexcept;
Deadline deadline_for(const FdState& state, Direction direction) noexcept;
bool wait_again(int fd, Direction direction, Deadline deadline) noexcept;

template <typename Attempt>
auto blocking_call(int fd, Direction direction, Attempt attempt) noexcept -> decltype(attempt()) {
  FdState* state = blocking_state(fd);
  if (state == nullptr) return attempt();
  const Deadline deadline = deadline_for(*state, direction);
  for (;;) {
    const auto n = attempt();
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    if (!wait_again(fd, direction, deadline)) return -1;
  }
}

}  // namespace duet::fiber::hook
