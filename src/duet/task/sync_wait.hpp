// duet::sync_wait(task) — run a task to completion from ordinary code.
//
// Contract
// - Starts the task on the calling thread and blocks that thread until the
//   task finishes, then returns its value (or reference) or rethrows its
//   exception. The task is consumed.
// - If the task suspends on something that another thread completes, the
//   calling thread sleeps on a condition variable until then. It drives no
//   event loop: to wait for I/O use the loop's own run-until-complete.
//
//   duet::Task<int> answer() { co_return 42; }
// - Anything but a Task is refused by a static_assert that says so.
//
//   int v = duet::sync_wait(answer());   // 42
#pragma once

#include <condition_variable>
#include <coroutine>
#include <exception>
#include <mutex>
#include <type_traits>
#include <utility>

#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"
#include "duet/task/task.hpp"

namespace duet {

namespace detail {

// Set once by the task's thread, waited on by sync_wait's thread. The notifier
// holds the mutex while notifying, so the waiter cannot return and destroy the
// event before the notifier has stopped touching it.
class BlockingEvent {
 public:
  void set() noexcept {
    std::lock_guard lock(mutex_);
    set_ = true;
    cv_.notify_one();
  }
  void wait() noexcept {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return set_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool set_ = false;
};

}  // namespace detail

template <typename T>
T sync_wait(Task<T> task) {
  detail::Result<T> result;
  detail::BlockingEvent event;
  auto runner = detail::await_into<detail::TaskRunner, T>(std::move(task), result);
  runner.start([](void* e) noexcept { static_cast<detail::BlockingEvent*>(e)->set(); }, &event);
  event.wait();
  return detail::take_result(result);
}

// Anything but a Task: one message instead of a failed deduction.
template <typename A>
  requires(!detail::is_task<std::remove_cvref_t<A>>)
detail::RefusedValue sync_wait(A&&) {
  static_assert(detail::always_false<A>,
                "duet: sync_wait takes a duet::Task<T>, the call of a Task-returning function: sync_wait(work()). "
                "To wait for an awaiter, co_await it in a Task");
  return {};
}

}  // namespace duet
