// run_bounded(loop, task[, limit]): runs a task on `loop` (the caller's thread)
// until it finishes or `limit` passes: its value, or its exception rethrown; a
// task still running at the limit fails the test instead of hanging it. For
// the combinators' tests (when_any, when_first_ok, with_timeout), where a bug
// shows up as a call that never returns.
//
//   CHECK(duet::test::run_bounded(loop, duet::when_any(stop, a(), b())).index() == 0);
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/task/task.hpp"

namespace duet::test {

namespace detail {
template <typename T>
Task<void> store(Task<T> task, std::optional<T>& out, std::exception_ptr& error) {
  try {
    out.emplace(co_await std::move(task));
  } catch (...) {
    error = std::current_exception();
  }
}
}  // namespace detail

template <typename T>
T run_bounded(EventLoop& loop, Task<T> task, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  std::optional<T> out;
  std::exception_ptr error;
  Task<void> runner = detail::store(std::move(task), out, error);
  runner.handle().resume();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!runner.done() && std::chrono::steady_clock::now() < deadline) {
    loop.run_once(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
  }
  if (!runner.done()) FAIL("the task did not finish in time");
  if (error) std::rethrow_exception(error);
  return std::move(*out);
}

}  // namespace duet::test
