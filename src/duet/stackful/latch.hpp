// duet::fiber::Latch — a single-use countdown for fibers on one scheduler.
//
// Contract
// - Starts at `count`; count_down(n) subtracts n (below zero is a bug). At zero
//   it opens for good: every blocked fiber becomes ready and later waits pass.
// - wait / wait_for / wait_until block the calling fiber with the results and
//   cancellation rules of duet::fiber::Event.
// - The scheduler's thread only. Same semantics as the stackless duet::Latch
//   (io/detail/latch_core.hpp).
//
//   duet::fiber::Latch done(3);
//   for (int i = 0; i < 3; ++i) duet::fiber::spawn([&] { work(); done.count_down(); });
//   (void)done.wait();
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>

#include "duet/io/detail/latch_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/stackful/detail/sync_wait.hpp"

namespace duet::fiber {

class Latch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Latch(std::size_t count) noexcept : core_(count) {}
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;
  Latch(Latch&&) = delete;
  Latch& operator=(Latch&&) = delete;
  ~Latch() = default;

  void count_down(std::size_t n = 1) noexcept { core_.count_down(n); }
  [[nodiscard]] std::size_t count() const noexcept { return core_.count(); }
  [[nodiscard]] bool try_wait() const noexcept { return core_.count() == 0; }

  IoResult<void> wait_until(Clock::time_point deadline, const std::stop_token& token = {}) {
    return duet::detail::wait_result(detail::wait_on(core_.event(), 1, deadline, token));
  }
  IoResult<void> wait(const std::stop_token& token = {}) { return wait_until(Clock::time_point::max(), token); }
  template <typename Rep, typename Period>
  IoResult<void> wait_for(std::chrono::duration<Rep, Period> timeout, const std::stop_token& token = {}) {
    return wait_until(detail::deadline_after(timeout), token);
  }

 private:
  duet::detail::LatchCore core_;
};

}  // namespace duet::fiber
