// duet::fiber::Semaphore — a counting semaphore for fibers on one scheduler, FIFO.
//
// Contract
// - acquire(n, token) blocks the calling fiber until n units are its own
//   (IoResult<void>); release(n) gives n back. Strict arrival order, units
//   handed straight to waiters (no overtaking, no barging); woken fibers run on
//   the next scheduling turn, never inside release().
// - acquire_for / acquire_until add a timeout (std::errc::timed_out); a stop
//   request gives std::errc::operation_canceled. A failed acquire took nothing;
//   a cancelled head lets the waiters behind it through.
// - The scheduler's thread only. Same semantics as the stackless duet::Semaphore
//   (io/detail/semaphore_core.hpp).
//
//   duet::fiber::Semaphore slots(4);
//   if (slots.acquire_for(1, 1s)) { talk_to_backend(); slots.release(1); }
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>

#include "duet/io/detail/semaphore_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/stackful/detail/sync_wait.hpp"

namespace duet::fiber {

class Semaphore {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Semaphore(std::size_t units) noexcept : core_(units) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;
  Semaphore(Semaphore&&) = delete;
  Semaphore& operator=(Semaphore&&) = delete;
  ~Semaphore() = default;

  IoResult<void> acquire_until(std::size_t n, Clock::time_point deadline, const std::stop_token& token = {}) {
    return duet::detail::wait_result(detail::wait_on(core_, n, deadline, token));
  }
  IoResult<void> acquire(std::size_t n = 1, const std::stop_token& token = {}) {
    return acquire_until(n, Clock::time_point::max(), token);
  }
  template <typename Rep, typename Period>
  IoResult<void> acquire_for(std::size_t n, std::chrono::duration<Rep, Period> timeout,
                             const std::stop_token& token = {}) {
    return acquire_until(n, detail::deadline_after(timeout), token);
  }
  [[nodiscard]] bool try_acquire(std::size_t n = 1) noexcept { return core_.try_take(n); }
  void release(std::size_t n = 1) noexcept { core_.release(n); }
  [[nodiscard]] std::size_t available() const noexcept { return core_.available(); }

 private:
  duet::detail::SemaphoreCore core_;
};

}  // namespace duet::fiber
