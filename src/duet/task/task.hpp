// duet::Task<T> — the stackless voice's unit of work: a lazy coroutine.
//
// Contract
// - Lazy: calling a Task-returning function allocates the frame and stops
//   before the first statement; nothing runs until the task is awaited (or
//   handed to sync_wait / when_all / TaskScope::spawn).
// - Owns its frame and nothing else: move-only; destroying a task that never
//   ran destroys the frame and the arguments it captured, exactly once.
// - T may be a value, an lvalue reference or void (not an rvalue reference:
//   return by value). An exception escaping the body is stored and rethrown to
//   whoever awaits the task.
// - co_await in a Task's body takes anything awaitable (a Task, an I/O call,
//   a primitive's wait, ...); anything else is refused with one static_assert
//   that says so (await_transform below), not a page of template errors.
// - Completion resumes the awaiter by symmetric transfer, so long chains of
//   synchronously finishing awaits run in constant stack.
// - Single-threaded: a task is awaited once, by one awaiter.
// - Frames come from this thread's FramePool (task/frame_pool.hpp), or from
//   an allocator passed as `std::allocator_arg, alloc` first arguments.
//
//   duet::Task<int> twice(int x) { co_return 2 * x; }
//   duet::Task<int> caller() { co_return co_await twice(21); }   // 42
//   int v = duet::sync_wait(caller());
#pragma once

#include <coroutine>
#include <exception>
#include <type_traits>
#include <utility>

#include "duet/task/detail/awaitable.hpp"
#include "duet/task/detail/frame_allocation.hpp"
#include "duet/task/detail/result.hpp"

namespace duet {

template <typename T = void>
class [[nodiscard]] Task;

namespace detail {

// FrameAllocation: frames come from this thread's FramePool, or from the
// allocator a coroutine takes after std::allocator_arg (frame_allocation.hpp).
class TaskPromiseBase : public FrameAllocation {
 public:
  // Resumes whoever awaited us. Returning the handle from await_suspend is the
  // symmetric transfer that keeps deep await chains from growing the stack.
  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <typename Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
      return self.promise().continuation_;
    }
    void await_resume() const noexcept {}
  };

  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwaiter final_suspend() const noexcept { return {}; }
  void set_continuation(std::coroutine_handle<> next) noexcept { continuation_ = next; }

 protected:
  // Every co_await in a Task's body passes through here, so that a
  // non-awaitable operand gets one readable message. An awaitable one is
  // awaited as before, through a forwarder that holds a reference to it (or
  // the awaiter its operator co_await made): no copy, no move of the operand.
  // P is the derived promise, for awaiters that want its handle.
  template <typename P, typename A>
  static auto checked_await(A&& operand) {
    if constexpr (Awaitable<A, P>) {
      return forward_awaiter(static_cast<A&&>(operand));
    } else {
      static_assert(always_false<A>,
                    "duet: co_await in a Task needs an awaitable (a Task, an I/O call such as sock.recv(buf), "
                    "sleep_for, a primitive's wait): this operand has no await_ready/await_suspend/await_resume "
                    "and no operator co_await. To run plain code, call it without co_await");
      return RefusedAwaiter{};
    }
  }

 private:
  std::coroutine_handle<> continuation_ = std::noop_coroutine();
};

template <typename T>
class TaskPromise final : public TaskPromiseBase {
 public:
  Task<T> get_return_object() noexcept;
  void unhandled_exception() noexcept { result_.set_exception(std::current_exception()); }
  template <typename U>
  void return_value(U&& value) {
    result_.set_value(std::forward<U>(value));
  }
  template <typename A>
  auto await_transform(A&& operand) {
    return checked_await<TaskPromise>(static_cast<A&&>(operand));
  }
  Result<T>& result() noexcept { return result_; }

 private:
  Result<T> result_;
};

template <>
class TaskPromise<void> final : public TaskPromiseBase {
 public:
  Task<void> get_return_object() noexcept;
  void unhandled_exception() noexcept { result_.set_exception(std::current_exception()); }
  void return_void() noexcept {}
  template <typename A>
  auto await_transform(A&& operand) {
    return checked_await<TaskPromise>(static_cast<A&&>(operand));
  }
  Result<void>& result() noexcept { return result_; }

 private:
  Result<void> result_;
};

}  // namespace detail

template <typename T>
class [[nodiscard]] Task {
  static_assert(!std::is_rvalue_reference_v<T>,
                "duet: Task<T&&> is not supported: return the value (Task<T>), or an lvalue reference (Task<T&>) "
                "to an object that outlives the task");

 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;
  using value_type = T;

  Task() noexcept = default;
  explicit Task(Handle handle) noexcept : handle_(handle) {}
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  ~Task() { destroy(); }

  // True when the task holds a coroutine frame (not moved-from or default).
  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(handle_); }
  // True once the body has finished (value or exception stored).
  [[nodiscard]] bool done() const noexcept { return handle_ && handle_.done(); }

  auto operator co_await() & noexcept { return Awaiter<false>{handle_}; }
  auto operator co_await() && noexcept { return Awaiter<true>{handle_}; }

  // For adapters (sync_wait, when_all, TaskScope) that drive the frame directly.
  [[nodiscard]] Handle handle() const noexcept { return handle_; }

 private:
  template <bool Move>
  struct Awaiter {
    Handle handle_;
    bool await_ready() const noexcept { return !handle_ || handle_.done(); }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
      handle_.promise().set_continuation(awaiter);
      return handle_;  // start (or continue) the task on this thread, no recursion
    }
    decltype(auto) await_resume() {
      if constexpr (Move) {
        return std::move(handle_.promise().result()).get();
      } else {
        return handle_.promise().result().get();
      }
    }
  };

  void destroy() noexcept {
    if (handle_) handle_.destroy();
  }

  Handle handle_{};
};

namespace detail {
template <typename T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>{std::coroutine_handle<TaskPromise<T>>::from_promise(*this)};
}
inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>{std::coroutine_handle<TaskPromise<void>>::from_promise(*this)};
}
}  // namespace detail

}  // namespace duet
