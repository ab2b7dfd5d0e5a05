// BareTask<T>: the smallest correct lazy coroutine type — the yardstick for
// duet::Task in task_bench. It has what any real task type needs (lazy start,
// an owning handle, symmetric transfer back to the awaiter, a stored value)
// and nothing else: no exception storage (an escaping exception terminates),
// no reference or void specialisations beyond what the benchmark uses.
//
// BareTask<T, /*Rethrows=*/true> adds exactly one thing: an escaping
// exception is stored and rethrown to the awaiter, as duet::Task does. It is
// the control for clang's frame elision (HALO): see docs/BENCHMARKS.md.
#pragma once

#include <coroutine>
#include <exception>
#include <type_traits>
#include <utility>

namespace duet::bench {

struct NoError {};

template <typename T, bool Rethrows = false>
class BareTask {
 public:
  struct promise_type {
    std::coroutine_handle<> continuation_ = std::noop_coroutine();
    T value_{};
    [[no_unique_address]] std::conditional_t<Rethrows, std::exception_ptr, NoError> error_{};
    BareTask get_return_object() noexcept {
      return BareTask{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    auto final_suspend() noexcept {
      struct Final {
        bool await_ready() noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
          return h.promise().continuation_;
        }
        void await_resume() noexcept {}
      };
      return Final{};
    }
    void return_value(T v) noexcept { value_ = v; }
    void unhandled_exception() noexcept {
      if constexpr (Rethrows) {
        error_ = std::current_exception();
      } else {
        std::terminate();
      }
    }
  };

  explicit BareTask(std::coroutine_handle<promise_type> h) noexcept : handle_(h) {}
  BareTask(const BareTask&) = delete;
  BareTask& operator=(const BareTask&) = delete;
  BareTask(BareTask&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  BareTask& operator=(BareTask&&) = delete;
  ~BareTask() {
    if (handle_) handle_.destroy();
  }

  auto operator co_await() && noexcept {
    struct Awaiter {
      std::coroutine_handle<promise_type> handle_;
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
        handle_.promise().continuation_ = awaiter;
        return handle_;
      }
      T await_resume() noexcept(!Rethrows) {
        if constexpr (Rethrows) {
          if (handle_.promise().error_) std::rethrow_exception(handle_.promise().error_);
        }
        return handle_.promise().value_;
      }
    };
    return Awaiter{handle_};
  }

  // Runs the coroutine until its first suspension (or to completion).
  void start() noexcept { handle_.resume(); }
  [[nodiscard]] bool done() const noexcept { return handle_.done(); }

 private:
  std::coroutine_handle<promise_type> handle_;
};

}  // namespace duet::bench
