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

#include "duet/io/event_loop.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"
#include "duet/task/task.hpp"

namespace duet {

template <typename T>
T run_until_complete(EventLoop& loop, Task<T> task) {
  detail::Result<T> result;
  bool done = false;
  auto runner = detail::await_into<detail::TaskRunner, T>(std::move(task), result);
  runner.start([](void* flag) noexcept { *static_cast<bool*>(flag) = true; }, &done);
  while (!done) loop.run_once(EventLoop::forever);
  return detail::take_result(result);
}

}  // namespace duet
