// duet::TaskScope — a nursery: spawn tasks whose lifetime the scope owns.
//
// Contract
// - spawn(task) starts the task at once on the calling thread (it runs until
//   its first suspension) and keeps its frame until it finishes. There is no
//   fire-and-forget: every spawned task belongs to exactly one scope.
// - co_await scope.join() resumes once every spawned task has finished
//   (including tasks spawned while joining), then rethrows the first exception
//   any of them raised (failed_count() tells how many did).
// - The scope must be joined before it is destroyed; destroying a scope with
//   running tasks would leave them outliving their owner and their event loop,
//   so it terminates with a message instead (the std::thread rule).
// - request_stop() / stop_token(): a cooperative stop signal spawned tasks can
//   pass to their I/O; the scope itself never cancels anything on its own.
// - One thread: spawn, join and the tasks' completions happen on the thread
//   that runs the scope's event loop.
//
//   duet::TaskScope scope;
//   for (auto& conn : conns) scope.spawn(serve(std::move(conn), scope.stop_token()));
//   co_await scope.join();
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <stop_token>

#include "duet/task/task.hpp"

namespace duet {

class TaskScope {
 public:
  TaskScope() = default;
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;
  TaskScope(TaskScope&&) = delete;
  TaskScope& operator=(TaskScope&&) = delete;
  ~TaskScope();

  void spawn(Task<void> task);

  // Completes when no spawned task is running, then rethrows the first stored
  // exception (once: a later join starts clean). A Task, so sync_wait and
  // when_all accept it like any other.
  [[nodiscard]] Task<void> join();

  [[nodiscard]] std::size_t running() const noexcept { return running_; }
  [[nodiscard]] std::size_t failed_count() const noexcept { return failed_; }
  void request_stop() noexcept { stop_.request_stop(); }
  [[nodiscard]] std::stop_token stop_token() const noexcept { return stop_.get_token(); }

 private:
  struct Runner;
  static Runner run(Task<void> task);
  std::coroutine_handle<> task_finished(std::exception_ptr error) noexcept;
  void rethrow_first_error();

  struct JoinAwaiter {
    TaskScope& scope_;
    bool await_ready() const noexcept { return scope_.running_ == 0; }
    void await_suspend(std::coroutine_handle<> joiner) noexcept { scope_.joiner_ = joiner; }
    void await_resume() { scope_.rethrow_first_error(); }
  };

  std::size_t running_ = 0;
  std::size_t failed_ = 0;
  std::exception_ptr first_error_;
  std::coroutine_handle<> joiner_;
  std::stop_source stop_;
};

}  // namespace duet
