// duet::fiber::sleep_for / sleep_until — timers for the stackful voice.
//
// Contract
// - The calling fiber sleeps (SLEEPING = waiting on a sleep IoOp on its own
//   stack: IORING_OP_TIMEOUT on io_uring, the loop's timer heap on epoll);
//   other fibers and I/O run meanwhile. Timers fire in deadline order.
// - Returns true when the deadline was reached, false when the stop token cut
//   it short. Never throws on a fiber; outside a fiber throws std::logic_error.
// - Same result as the stackless duet::sleep_for (which returns it from co_await).
//
//   duet::fiber::sleep_for(10ms);
//   bool full = duet::fiber::sleep_for(1s, stop.get_token());   // false if stopped
#pragma once

#include <chrono>
#include <stop_token>

#include "duet/io/clock.hpp"
#include "duet/stackful/detail/fiber_op.hpp"

namespace duet::fiber {

inline bool sleep_until(std::chrono::steady_clock::time_point deadline, const std::stop_token& token = {}) {
  detail::FiberOp op;
  op.kind_ = OpKind::sleep;
  op.deadline_ = deadline;
  return detail::run_op(op, token) >= 0;
}

template <typename Rep, typename Period>
bool sleep_for(std::chrono::duration<Rep, Period> duration, const std::stop_token& token = {}) {
  return sleep_until(duet::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(duration),
                     token);
}

}  // namespace duet::fiber
