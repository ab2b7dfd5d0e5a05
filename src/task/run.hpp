// duet::run_until_complete(loop, task) — drive an EventLoop until one task finishes.
//
// Contract
// - Starts the task on the calling thread (which must be the loop's thread) and
//   turns the loop until the task has finished, then returns its value or rethrows
//   its exception. Other work on the loop (spawned tasks, pending I/O) keeps
//   running meanwhile and may still be in flight when this returns.
// - loop.stop() does not abort it (a task cannot be dropped half-way safely):
//   use a std::stop_token to make the task itself finish.
// - "Run until stopped" is loop.run(); "one turn" is loop.run_once().
//
//   duet::EventLoop loop(duet::Backend::io_uring);
//   int v = duet::run_until_complete(loop, compute(loop));
#pragma once

#include <coroutine>
#include <exception>
#include <type_traits>
#include <utility>

#include "io/event_loop.hpp"
#include "task/detail/result.hpp"
#include "task/task.hpp"

namespace duet {

namespace detail {

// The frame that awaits the user's task and raises a flag when it is done.
struct LoopRunner {
  struct promise_type {
    bool* done_ = nullptr;
    LoopRunner get_return_object() noexcept {
      return LoopRunner{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    auto final_suspend() const noexcept {
      struct Flag {
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<promise_type> self) const noexcept { *self.promise().done_ = true; }
        void await_resume() const noexcept {}
      };
      return Flag{};
    }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::terminate(); }  // body catches all
  };
  std::coroutine_handle<promise_type> handle_;
};

template <typename T>
LoopRunner run_on_loop(Task<T> task, Result<T>& out) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      out.set_value();
    } else {
      out.set_value(co_await std::move(task));
    }
  } catch (...) {
    out.set_exception(std::current_exception());
  }
}

}  // namespace detail

template <typename T>
T run_until_complete(EventLoop& loop, Task<T> task) {
  detail::Result<T> result;
  bool done = false;
  auto runner = detail::run_on_loop<T>(std::move(task), result);
  runner.handle_.promise().done_ = &done;
  runner.handle_.resume();
  while (!done) loop.run_once(EventLoop::forever);
  runner.handle_.destroy();
  if constexpr (std::is_void_v<T> || std::is_reference_v<T>) {
    return result.get();
  } else {
    return std::move(result).get();
  }
}

}  // namespace duet
