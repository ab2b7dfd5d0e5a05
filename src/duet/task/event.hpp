// duet::Event — a manual-reset event for tasks on one loop.
//
// Contract
// - set() wakes every task waiting in wait() and lets later waits pass at once
//   until reset(). Waiters resume from the loop's delivery (never inside set()).
// - co_await ev.wait(token) gives IoResult<void>: ok, or
//   std::errc::operation_canceled (stop request), or std::errc::timed_out
//   (under with_timeout). A cancelled waiter leaves at once; destroying a task
//   suspended in wait() is safe. No allocation per wait.
// - The event holds its loop: every member, every waiter and every stop request
//   on that loop's thread. The semantics live in io/detail/event_core.hpp,
//   shared with duet::fiber::Event.
//
//   duet::Event ready(loop);
//   scope.spawn([](duet::Event& e) -> duet::Task<void> { (void)co_await e.wait(); }(ready));
//   ready.set();                                      // the waiter runs from the loop
//   auto r = co_await duet::with_timeout(ready.wait(), 100ms);
#pragma once

#include <stop_token>

#include "duet/io/detail/event_core.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/detail/sync_awaiter.hpp"

namespace duet {

class Event {
 public:
  explicit Event(EventLoop& loop) noexcept : loop_(&loop) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&&) = delete;
  Event& operator=(Event&&) = delete;
  ~Event() = default;

  void set() noexcept { core_.set(); }
  void reset() noexcept { core_.reset(); }
  [[nodiscard]] bool is_set() const noexcept { return core_.is_set(); }

  [[nodiscard]] detail::WaitAwaiter wait(std::stop_token token = {}) noexcept {
    return {*loop_, core_, 1, std::move(token)};
  }

 private:
  EventLoop* loop_;
  detail::EventCore core_;
};

}  // namespace duet
