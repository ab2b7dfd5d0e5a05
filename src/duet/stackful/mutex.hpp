// duet::fiber::Mutex — a FIFO lock for fibers on one scheduler, with a scoped guard.
//
// Contract
// - lock(token) blocks the calling fiber and gives IoResult<MutexGuard>; the
//   guard owns the lock until destroyed. Unlocking hands the lock to the first
//   waiter (FIFO): nobody is overtaken, and a fiber that unlocks and locks
//   again queues behind the others. The new owner runs on the next turn.
// - lock_for / lock_until add a timeout (std::errc::timed_out); a stop request
//   gives std::errc::operation_canceled; then nothing is held. A hand-off that
//   beat the cancel wins (ok, the lock is owned).
// - Not recursive. The scheduler's thread only. Same semantics as the stackless
//   duet::Mutex: a SemaphoreCore of 1 (io/detail/semaphore_core.hpp).
//
//   duet::fiber::Mutex m;
//   if (auto lock = m.lock(); lock) ++shared_counter;   // unlocked at the end of the if
//   if (auto lock = m.lock_for(50ms); !lock) { /* timed out */ }
#pragma once

#include <chrono>
#include <stop_token>

#include "duet/io/detail/semaphore_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/mutex_guard.hpp"
#include "duet/stackful/detail/sync_wait.hpp"

namespace duet::fiber {

class Mutex {
 public:
  using Clock = std::chrono::steady_clock;
  using Guard = MutexGuard;

  Mutex() noexcept = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  Mutex(Mutex&&) = delete;
  Mutex& operator=(Mutex&&) = delete;
  ~Mutex() = default;

  IoResult<MutexGuard> lock_until(Clock::time_point deadline, const std::stop_token& token = {}) {
    const WaitState state = detail::wait_on(core_, 1, deadline, token);
    if (state != WaitState::granted) return duet::detail::wait_result(state).error();
    return MutexGuard(core_);
  }
  IoResult<MutexGuard> lock(const std::stop_token& token = {}) { return lock_until(Clock::time_point::max(), token); }
  template <typename Rep, typename Period>
  IoResult<MutexGuard> lock_for(std::chrono::duration<Rep, Period> timeout, const std::stop_token& token = {}) {
    return lock_until(detail::deadline_after(timeout), token);
  }
  // The lock now if it is free and nobody waits; an empty guard otherwise.
  [[nodiscard]] MutexGuard try_lock() noexcept { return core_.try_take(1) ? MutexGuard(core_) : MutexGuard(); }
  [[nodiscard]] bool is_locked() const noexcept { return core_.available() == 0; }

 private:
  duet::detail::SemaphoreCore core_{1};
};

}  // namespace duet::fiber
