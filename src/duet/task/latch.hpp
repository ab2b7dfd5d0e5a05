// duet::Latch — a single-use countdown for tasks on one loop.
//
// Contract
// - Starts at `count`; count_down(n) subtracts n (below zero is a bug). At zero
//   it opens for good: every waiter resumes (from the loop's delivery) and
//   later waits pass at once.
// - co_await latch.wait(token) gives IoResult<void>, with the cancellation,
//   timeout (with_timeout) and destruction rules of duet::Event.
// - Loop thread only. Semantics shared with duet::fiber::Latch
//   (io/detail/latch_core.hpp).
//
//   duet::Latch done(loop, 3);
//   for (int i = 0; i < 3; ++i) scope.spawn(work(done));   // each calls done.count_down()
//   (void)co_await done.wait();
#pragma once

#include <cstddef>
#include <stop_token>

#include "duet/io/detail/latch_core.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/detail/sync_awaiter.hpp"

namespace duet {

class Latch {
 public:
  Latch(EventLoop& loop, std::size_t count) noexcept : loop_(&loop), core_(count) {}
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;
  Latch(Latch&&) = delete;
  Latch& operator=(Latch&&) = delete;
  ~Latch() = default;

  void count_down(std::size_t n = 1) noexcept { core_.count_down(n); }
  [[nodiscard]] std::size_t count() const noexcept { return core_.count(); }
  [[nodiscard]] bool try_wait() const noexcept { return core_.count() == 0; }

  [[nodiscard]] detail::WaitAwaiter wait(std::stop_token token = {}) noexcept {
    return {*loop_, core_.event(), 1, std::move(token)};
  }

 private:
  EventLoop* loop_;
  detail::LatchCore core_;
};

}  // namespace duet
