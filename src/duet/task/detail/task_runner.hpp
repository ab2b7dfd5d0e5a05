// Machinery for the functions that drive a Task from ordinary code
// (sync_wait, run_until_complete): a frame that awaits the task, stores its
// value or exception in a Result, and calls a notifier at its final suspension.
// The frame stays alive after notifying; the driver destroys it.
#pragma once

#include <coroutine>
#include <exception>
#include <type_traits>
#include <utility>

#include "duet/task/detail/await_into.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/task.hpp"

namespace duet::detail {

struct TaskRunner {
  struct promise_type {
    void (*notify_)(void* target) noexcept = nullptr;
    void* target_ = nullptr;
    TaskRunner get_return_object() noexcept {
      return TaskRunner{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    auto final_suspend() const noexcept {
      struct Notify {
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<promise_type> self) const noexcept {
          self.promise().notify_(self.promise().target_);
        }
        void await_resume() const noexcept {}
      };
      return Notify{};
    }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::terminate(); }  // body catches all
  };

  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;
  TaskRunner(TaskRunner&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  TaskRunner& operator=(TaskRunner&&) = delete;
  ~TaskRunner() {
    if (handle_) handle_.destroy();
  }

  // Runs the task until its first suspension; notify(target) runs when it is done.
  void start(void (*notify)(void*) noexcept, void* target) noexcept {
    handle_.promise().notify_ = notify;
    handle_.promise().target_ = target;
    handle_.resume();
  }

  explicit TaskRunner(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}
  std::coroutine_handle<promise_type> handle_;
};


// The value (moved out), reference or void of a finished Result, or its exception.
template <typename T>
T take_result(Result<T>& result) {
  if constexpr (std::is_void_v<T> || std::is_reference_v<T>) {
    return result.get();
  } else {
    return std::move(result).get();
  }
}

}  // namespace duet::detail
