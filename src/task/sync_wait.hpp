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
//   int v = duet::sync_wait(answer());   // 42
#pragma once

#include <condition_variable>
#include <coroutine>
#include <exception>
#include <mutex>
#include <utility>

#include "task/detail/result.hpp"
#include "task/task.hpp"

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

// The frame that awaits the user's task and signals the event when it is done.
struct SyncWaitRunner {
  struct promise_type {
    BlockingEvent* event_ = nullptr;
    SyncWaitRunner get_return_object() noexcept {
      return SyncWaitRunner{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    auto final_suspend() const noexcept {
      struct Signal {
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<promise_type> self) const noexcept {
          self.promise().event_->set();  // frame stays alive: sync_wait destroys it
        }
        void await_resume() const noexcept {}
      };
      return Signal{};
    }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::terminate(); }  // body catches all
  };
  std::coroutine_handle<promise_type> handle_;
};

template <typename T>
SyncWaitRunner run_into(Task<T> task, Result<T>& out) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      out.set_value();
    } else if constexpr (std::is_reference_v<T>) {
      out.set_value(co_await std::move(task));
    } else {
      out.set_value(co_await std::move(task));
    }
  } catch (...) {
    out.set_exception(std::current_exception());
  }
}

}  // namespace detail

template <typename T>
T sync_wait(Task<T> task) {
  detail::Result<T> result;
  detail::BlockingEvent event;
  auto runner = detail::run_into<T>(std::move(task), result);
  runner.handle_.promise().event_ = &event;
  runner.handle_.resume();
  event.wait();
  runner.handle_.destroy();
  if constexpr (std::is_void_v<T> || std::is_reference_v<T>) {
    return result.get();
  } else {
    return std::move(result).get();
  }
}

}  // namespace duet
