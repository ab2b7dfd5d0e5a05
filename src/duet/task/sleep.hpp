// duet::sleep_for / sleep_until — timers for the stackless voice.
//
// Contract
// - A sleep is an IoOp (OpKind::sleep) in the awaiting frame: IORING_OP_TIMEOUT on
//   io_uring, the loop's timer heap on epoll. Timers fire in deadline order.
// - co_await gives true when the deadline was reached, false when a stop token
//   cut it short (or it was cancelled). Never throws.
// - Loop thread only.
//
//   co_await duet::sleep_for(loop, 10ms);
//   bool full = co_await duet::sleep_for(loop, 1s, scope.stop_token());   // false if stopped
#pragma once

#include <chrono>
#include <stop_token>

#include "duet/io/clock.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/io_awaiter.hpp"

namespace duet {

class SleepAwaiter : public IoAwaiter {
 public:
  SleepAwaiter(EventLoop& loop, std::chrono::steady_clock::time_point deadline, std::stop_token token) noexcept
      : IoAwaiter(loop, std::move(token)) {
    op_.kind_ = OpKind::sleep;
    op_.deadline_ = deadline;
  }
  bool await_resume() const noexcept { return result() >= 0; }
};

inline SleepAwaiter sleep_until(EventLoop& loop, std::chrono::steady_clock::time_point deadline,
                                std::stop_token token = {}) noexcept {
  return SleepAwaiter(loop, deadline, std::move(token));
}

template <typename Rep, typename Period>
SleepAwaiter sleep_for(EventLoop& loop, std::chrono::duration<Rep, Period> duration,
                       std::stop_token token = {}) noexcept {
  const auto now = duet::now();
  return SleepAwaiter(loop, now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(duration),
                      std::move(token));
}

}  // namespace duet
