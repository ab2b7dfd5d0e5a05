// duet::offload(fn) — run blocking work on a BlockingPool thread and resume
// the awaiting task on its own loop with the result.
//
// Contract
// - co_await offload(fn) / offload(pool, fn, stop, when_full): fn() runs on a
//   pool thread (runtime/blocking_pool.hpp; default_blocking_pool() without a
//   pool), never on a loop thread; the task resumes on the thread whose loop
//   it awaited from (EventLoop::current(): await it on a loop's thread), in a
//   turn of that loop. Result: IoResult<T> (T = fn's return type, default-
//   constructible, or void) with fn's value; fn's exception is rethrown.
// - Back-pressure: a full pool queue makes the task wait (suspended) for room;
//   with WhenFull::fail it resumes with errc::resource_unavailable_try_again
//   instead (also after the pool's shutdown).
// - stop: a stop request before fn has started removes the job; fn never runs
//   and the task resumes (in the loop's next turn) with
//   errc::operation_canceled. Once fn runs it runs to the end: give fn the
//   token yourself to stop it early. A token already stopped fails at once.
//   (Plain parameters, not an options struct: GCC 12 destroys a braced
//   temporary inside a co_await expression twice.)
// - Destroying the awaiting task cancels a job not yet started, or waits for
//   one that runs (a frame the pool still writes is never freed).
//
//   duet::IoResult<int> n = co_await duet::offload([] { return parse(huge); });
//   auto r = co_await duet::offload(pool, [] { return lookup(host); }, token, duet::WhenFull::fail);
#pragma once

#include <cerrno>
#include <coroutine>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/task/detail/offload_job.hpp"

namespace duet {


template <typename F>
class [[nodiscard]] OffloadAwaiter {
 public:
  using T = std::invoke_result_t<F&>;

  OffloadAwaiter(BlockingPool& pool, F&& fn, std::stop_token stop, WhenFull when_full)
      : job_(pool, std::move(fn)), stop_(std::move(stop)), when_full_(when_full) {}
  OffloadAwaiter(const OffloadAwaiter&) = delete;
  OffloadAwaiter& operator=(const OffloadAwaiter&) = delete;
  OffloadAwaiter(OffloadAwaiter&&) = delete;
  OffloadAwaiter& operator=(OffloadAwaiter&&) = delete;
  ~OffloadAwaiter() { on_stop_.reset(); }  // before job_ cancels or waits

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> waiter) {
    if (stop_.stop_requested()) {
      job_.answered(-ECANCELED);
      return false;
    }
    EventLoop* home = EventLoop::current();
    if (home == nullptr) throw std::logic_error("duet: offload awaited on a thread without an EventLoop");
    waiter_ = waiter;
    job_.start(*home, &resume, this, when_full_ == WhenFull::wait);
    if (stop_.stop_possible()) on_stop_.emplace(stop_, Canceller{&job_});
    return true;
  }
  IoResult<T> await_resume() {
    on_stop_.reset();
    return job_.take();
  }

 private:
  struct Canceller {
    detail::OffloadJob<F>* job;
    void operator()() const noexcept { job->cancel(); }
  };
  static void resume(IoOp* op, int res) noexcept {
    auto* self = static_cast<OffloadAwaiter*>(op->context_);
    self->job_.answered(res);
    self->waiter_.resume();
  }

  detail::OffloadJob<F> job_;
  std::stop_token stop_;
  WhenFull when_full_;
  std::coroutine_handle<> waiter_;
  std::optional<std::stop_callback<Canceller>> on_stop_;
};

template <typename F>
OffloadAwaiter<std::decay_t<F>> offload(BlockingPool& pool, F&& fn, std::stop_token stop = {},
                                        WhenFull when_full = WhenFull::wait) {
  return OffloadAwaiter<std::decay_t<F>>(pool, std::decay_t<F>(std::forward<F>(fn)), std::move(stop), when_full);
}

template <typename F>
  requires(!std::is_same_v<std::decay_t<F>, BlockingPool>)
OffloadAwaiter<std::decay_t<F>> offload(F&& fn, std::stop_token stop = {}, WhenFull when_full = WhenFull::wait) {
  return offload(default_blocking_pool(), std::forward<F>(fn), std::move(stop), when_full);
}

}  // namespace duet
