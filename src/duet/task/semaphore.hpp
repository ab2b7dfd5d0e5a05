// duet::Semaphore — a counting semaphore for tasks on one loop, FIFO.
//
// Contract
// - Holds units; co_await sem.acquire(n, token) takes n (IoResult<void>),
//   release(n) gives n back. Waiters are served strictly in arrival order and
//   released units are handed straight to them (a releaser asking again queues
//   behind), so nobody is overtaken or starved. Woken waiters resume from the
//   loop's delivery.
// - Errors: std::errc::operation_canceled (stop request), std::errc::timed_out
//   (with_timeout); a failed acquire took nothing. A cancelled waiter leaves
//   at once and, if it was the head, lets the ones behind it through. A task
//   destroyed after being granted but before resuming gives its units back.
// - Loop thread only. Semantics shared with duet::fiber::Semaphore
//   (io/detail/semaphore_core.hpp).
//
//   duet::Semaphore slots(loop, 4);             // at most 4 callers at once
//   if (auto r = co_await duet::with_timeout(slots.acquire(1), 1s); r) {
//     co_await talk_to_backend();  slots.release(1);
//   }
#pragma once

#include <cstddef>
#include <stop_token>

#include "duet/io/detail/semaphore_core.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/detail/sync_awaiter.hpp"

namespace duet {

class Semaphore {
 public:
  Semaphore(EventLoop& loop, std::size_t units) noexcept : loop_(&loop), core_(units) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;
  Semaphore(Semaphore&&) = delete;
  Semaphore& operator=(Semaphore&&) = delete;
  ~Semaphore() = default;

  [[nodiscard]] detail::WaitAwaiter acquire(std::size_t n = 1, std::stop_token token = {}) noexcept {
    return {*loop_, core_, n, std::move(token)};
  }
  [[nodiscard]] bool try_acquire(std::size_t n = 1) noexcept { return core_.try_take(n); }
  void release(std::size_t n = 1) noexcept { core_.release(n); }
  [[nodiscard]] std::size_t available() const noexcept { return core_.available(); }

 private:
  EventLoop* loop_;
  detail::SemaphoreCore core_;
};

}  // namespace duet
