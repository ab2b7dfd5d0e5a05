// duet::Mutex — a FIFO lock for tasks on one loop, with a scoped guard.
//
// Contract
// - co_await m.lock(token) gives IoResult<MutexGuard>: the guard owns the lock
//   until destroyed. unlock hands the lock straight to the first waiter
//   (FIFO hand-off): a waiter is never overtaken, and a task that unlocks and
//   locks again queues behind the others. The new owner resumes from the
//   loop's delivery.
// - Errors: std::errc::operation_canceled (stop request), std::errc::timed_out
//   (with_timeout); then nothing is held. A grant that beat the cancel wins
//   (the result is ok and owns the lock). A task destroyed after the hand-off
//   but before resuming passes the lock on to the next waiter.
// - Not recursive. Loop thread only. Semantics: a SemaphoreCore of 1
//   (io/detail/semaphore_core.hpp), shared with duet::fiber::Mutex.
//
//   duet::Mutex m(loop);
//   auto lock = co_await m.lock();                    // lock.ok() unless stopped
//   ++shared_counter;                                 // unlocked when `lock` goes
#pragma once

#include <stop_token>

#include "duet/io/detail/semaphore_core.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/mutex_guard.hpp"
#include "duet/task/detail/sync_awaiter.hpp"

namespace duet {

class Mutex {
 public:
  using Guard = MutexGuard;

  class LockAwaiter : public detail::SyncAwaiter {
   public:
    LockAwaiter(EventLoop& loop, detail::SemaphoreCore& core, std::stop_token token) noexcept
        : SyncAwaiter(loop, core, 1, std::move(token)), core_(&core) {}
    IoResult<MutexGuard> await_resume() noexcept {
      const WaitState state = take_state();
      if (state != WaitState::granted) return detail::wait_result(state).error();
      return MutexGuard(*core_);
    }

   private:
    detail::SemaphoreCore* core_;
  };

  explicit Mutex(EventLoop& loop) noexcept : loop_(&loop) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  Mutex(Mutex&&) = delete;
  Mutex& operator=(Mutex&&) = delete;
  ~Mutex() = default;

  [[nodiscard]] LockAwaiter lock(std::stop_token token = {}) noexcept { return {*loop_, core_, std::move(token)}; }
  // The lock now if it is free and nobody waits; an empty guard otherwise.
  [[nodiscard]] MutexGuard try_lock() noexcept { return core_.try_take(1) ? MutexGuard(core_) : MutexGuard(); }
  [[nodiscard]] bool is_locked() const noexcept { return core_.available() == 0; }

 private:
  EventLoop* loop_;
  detail::SemaphoreCore core_{1};
};

}  // namespace duet
