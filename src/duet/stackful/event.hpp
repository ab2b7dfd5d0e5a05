// duet::fiber::Event — a manual-reset event for fibers on one scheduler.
//
// Contract
// - set() makes every fiber blocked in wait() ready (they run on the next
//   scheduling turn, never inside set()) and lets later waits pass at once
//   until reset().
// - wait(token) / wait_for(d, token) / wait_until(t, token) block the calling
//   fiber and give IoResult<void>: ok, std::errc::operation_canceled (stop
//   request) or std::errc::timed_out. A cancelled waiter leaves at once.
// - The scheduler's thread only (waits on a fiber). Same semantics as the
//   stackless duet::Event: one core, io/detail/event_core.hpp.
//
//   duet::fiber::Event ready;
//   duet::fiber::spawn([&] { (void)ready.wait(); /* runs after set() */ });
//   ready.set();
//   if (!ready.wait_for(100ms)) { /* timed out */ }
#pragma once

#include <chrono>
#include <stop_token>

#include "duet/io/detail/event_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/stackful/detail/sync_wait.hpp"

namespace duet::fiber {

class Event {
 public:
  using Clock = std::chrono::steady_clock;

  Event() noexcept = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&&) = delete;
  Event& operator=(Event&&) = delete;
  ~Event() = default;

  void set() noexcept { core_.set(); }
  void reset() noexcept { core_.reset(); }
  [[nodiscard]] bool is_set() const noexcept { return core_.is_set(); }

  IoResult<void> wait_until(Clock::time_point deadline, const std::stop_token& token = {}) {
    return duet::detail::wait_result(detail::wait_on(core_, 1, deadline, token));
  }
  IoResult<void> wait(const std::stop_token& token = {}) { return wait_until(Clock::time_point::max(), token); }
  template <typename Rep, typename Period>
  IoResult<void> wait_for(std::chrono::duration<Rep, Period> timeout, const std::stop_token& token = {}) {
    return wait_until(detail::deadline_after(timeout), token);
  }

 private:
  duet::detail::EventCore core_;
};

}  // namespace duet::fiber
