// duet::fiber::detail::wait_on — the stackful voice's one blocking wait for every coordination primitive.
//
// Contract
// - wait_on(core, count, deadline, token) blocks the calling fiber until the
//   core grants node.count_ (WaitState::granted), the stop token is stopped
//   (cancelled; one already stopped fails at once, even if the primitive was
//   free) or the deadline passes (timed_out; EventLoop::forever = none). The
//   WaitNode and the timer's IoOp live on the fiber's stack: no allocation.
// - The core (io/detail/wait_core.hpp) decides; this only parks and readies:
//   a grant makes the fiber READY (scheduler's ready queue, user space), it
//   never switches inside unlock()/set(). A grant that beat a stop or a
//   timeout wins: the caller owns what it was granted.
// - A waiting fiber cannot be destroyed (the scheduler never drops one), so
//   nothing can be granted to a waiter that is gone. request_stop must run on
//   the scheduler's thread. Outside a fiber: throws std::logic_error.
// - payload becomes node.payload_ (a Channel's value slot on the caller's stack).
//
//   if (wait_on(core, 1, deadline, token) == WaitState::granted) { /* own it */ }
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>

#include "duet/io/clock.hpp"
#include "duet/io/detail/wait_core.hpp"
#include "duet/io/wait_queue.hpp"

namespace duet::fiber::detail {

WaitState wait_on(duet::detail::WaitCore& core, std::size_t count, std::chrono::steady_clock::time_point deadline,
                  const std::stop_token& token, void* payload = nullptr);

// now + d, saturating (a huge duration means "no deadline", not an overflow).
template <typename Rep, typename Period>
std::chrono::steady_clock::time_point deadline_after(std::chrono::duration<Rep, Period> d) noexcept {
  using Clock = std::chrono::steady_clock;
  const auto now = duet::now();
  if (d >= std::chrono::duration_cast<std::chrono::duration<Rep, Period>>(Clock::time_point::max() - now)) {
    return Clock::time_point::max();
  }
  return now + std::chrono::duration_cast<Clock::duration>(d);
}

}  // namespace duet::fiber::detail
