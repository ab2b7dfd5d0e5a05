// TaskScope: each spawned task runs inside a Runner coroutine that the scope
// counts. The Runner destroys its own frame at its final suspension and hands
// control straight to the joiner when it was the last one (symmetric transfer),
// so a scope of a million short tasks neither leaks frames nor grows the stack.
#include "duet/task/task_scope.hpp"

#include <cstdio>
#include <utility>

namespace duet {

struct TaskScope::Runner {
  struct promise_type {
    TaskScope* scope_ = nullptr;
    std::exception_ptr error_;

    Runner get_return_object() noexcept {
      return Runner{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    auto final_suspend() const noexcept {
      struct Finish {
        bool await_ready() const noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> self) noexcept {
          TaskScope* scope = self.promise().scope_;
          std::exception_ptr error = std::move(self.promise().error_);
          self.destroy();  // the frame is suspended here, so it may go now
          return scope->task_finished(std::move(error));
        }
        void await_resume() const noexcept {}
      };
      return Finish{};
    }
    void return_void() const noexcept {}
    void unhandled_exception() noexcept { error_ = std::current_exception(); }
  };
  std::coroutine_handle<promise_type> handle_;
};

TaskScope::Runner TaskScope::run(Task<void> task) {
  co_await std::move(task);
}

void TaskScope::spawn(Task<void> task) {
  if (!task.valid()) return;
  Runner runner = run(std::move(task));
  runner.handle_.promise().scope_ = this;
  ++running_;
  runner.handle_.resume();
}

std::coroutine_handle<> TaskScope::task_finished(std::exception_ptr error) noexcept {
  if (error) {
    ++failed_;
    if (!first_error_) first_error_ = std::move(error);
  }
  if (--running_ == 0 && joiner_) return std::exchange(joiner_, {});
  return std::noop_coroutine();
}

Task<void> TaskScope::join() { co_await JoinAwaiter{*this}; }

void TaskScope::rethrow_first_error() {
  if (first_error_) std::rethrow_exception(std::exchange(first_error_, nullptr));
}

TaskScope::~TaskScope() {
  if (running_ != 0) {
    std::fprintf(stderr, "duet: TaskScope destroyed with %zu running task(s); join() it first\n",
                 running_);
    std::terminate();
  }
}

}  // namespace duet
