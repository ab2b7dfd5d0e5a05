// duet::run_until_complete(loop, task) — drive an EventLoop until one task finishes.
//
// Contract
// - Starts the task on the calling thread (which must be the loop's thread) and
//   turns the loop until the task has finished, then returns its value or rethrows
//   its exception. Other work on the loop (spawned tasks, pending I/O) keeps
//   running meanwhile and may still be in flight when this returns.
// - run_until_complete(loop, task) ignores loop.stop() (a task cannot be
//   dropped half-way safely). run_until_complete(loop, task, stop_source)
//   honours it: a loop.stop() (from any thread, or a signal handler: it is
//   async-signal-safe) requests a stop on stop_source, whose tokens the task
//   passes to its I/O, and the loop keeps turning until the task has finished
//   (stopping is cooperative: a task that ignores its token runs on). The stop
//   request on the loop is consumed (reset_stop), so the loop can run again.
//   A stop requested before the call is honoured at its first turn.
// - For SIGINT/SIGTERM, a SignalSet is the simpler way (task/signal_set.hpp;
//   docs/GUIDE.md, "Signals and a clean stop").
// - "Run until stopped" is loop.run(); "one turn" is loop.run_once().
//
//   duet::EventLoop loop(duet::Backend::io_uring);
//   int v = duet::run_until_complete(loop, compute(loop));
//   std::stop_source stop;   // loop.stop() from elsewhere: serve sees its token stopped
//   duet::run_until_complete(loop, serve(loop, stop.get_token()), stop);
#pragma once

#include <coroutine>
#include <exception>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"
#include "duet/task/task.hpp"

namespace duet {

namespace detail {

// stop == nullptr: loop.stop() is ignored.
template <typename T>
T run_task_on(EventLoop& loop, Task<T> task, std::stop_source* stop) {
  Result<T> result;
  bool done = false;
  auto runner = await_into<TaskRunner, T>(std::move(task), result);
  runner.start([](void* flag) noexcept { *static_cast<bool*>(flag) = true; }, &done);
  while (!done) {
    if (stop != nullptr && loop.stop_requested()) {
      loop.reset_stop();
      stop->request_stop();  // here, on the loop's thread: I/O cancels must run there
      continue;              // the stop may have finished the task
    }
    loop.run_once(EventLoop::forever);
  }
  return take_result(result);
}

}  // namespace detail

template <typename T>
T run_until_complete(EventLoop& loop, Task<T> task) {
  return detail::run_task_on(loop, std::move(task), nullptr);
}

template <typename T>
T run_until_complete(EventLoop& loop, Task<T> task, std::stop_source stop) {
  return detail::run_task_on(loop, std::move(task), &stop);
}

}  // namespace duet
