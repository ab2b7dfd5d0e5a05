// duet::fiber::await(task) — a fiber blocks on a stackless Task<T> and gets its T.
//
// Contract
// - On a fiber of this thread's Scheduler: starts the task on the calling
//   fiber (it runs on this stack until its first suspension), then parks this
//   fiber only; other fibers, and tasks on the scheduler's loop, run meanwhile.
//   Returns the task's value (moved out), reference or nothing, or rethrows the
//   exception the task ended with. The task is consumed. (Until its first
//   suspension the task is on a fiber: libc calls it makes there are hooked,
//   where libduet_hook is loaded.)
// - The task's I/O must be on scheduler.loop(), the loop the scheduler polls
//   (an op on another loop would never complete here). While the task waits on
//   that loop's I/O the scheduler keeps polling; if it waits on nothing that can
//   complete (every fiber waits and the loop is idle: no I/O in flight, no
//   message queued, no reply awaited — EventLoop::idle), run() throws
//   std::logic_error (deadlock), as for fibers. A task away on another shard
//   through on(shard, ...) is awaited (it comes back as a message), not stuck.
// - The fiber cannot go away while it waits (a scheduler never drops a waiting
//   fiber), so the task's frame and its result outlive the task: no rule for
//   the caller to keep. There is no stop-token overload: a Task stops through
//   the std::stop_token it was given, and its end ends the wait.
// - Task code after a suspension runs where it is resumed (the scheduler's main
//   context, or another fiber that completed what it waited on), not on the
//   awaiting fiber.
// - Outside a fiber throws std::logic_error: stackless code co_awaits the task
//   instead; main() wraps it in a fiber, spawn([&] { return await(t()); }).join().
// - Thread: the scheduler's.
//
//   duet::Task<int> fetch(duet::EventLoop& loop);   // stackless code
//   auto f = scheduler.spawn([&] { return duet::fiber::await(fetch(scheduler.loop())); });
//   int v = f.join();
#pragma once

#include <utility>

#include "duet/stackful/detail/fiber_record.hpp"
#include "duet/task/detail/await_into.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"
#include "duet/task/task.hpp"

namespace duet::fiber {

namespace detail {

// The awaiting fiber and whether its task has finished.
struct TaskWake {
  FiberRecord* fiber_ = nullptr;
  bool done_ = false;
};

// The running fiber; throws std::logic_error outside any fiber.
FiberRecord& fiber_for_await();
// The task runner's notifier: marks the wait done and readies the fiber.
void wake_after_task(void* wake) noexcept;
// Parks the fiber until wake.done_ (at once when the task finished inline).
void park_until_done(TaskWake& wake);

}  // namespace detail

template <typename T>
T await(Task<T> task) {
  detail::TaskWake wake{&detail::fiber_for_await()};
  ::duet::detail::Result<T> result;
  auto runner = ::duet::detail::await_into<::duet::detail::TaskRunner, T>(std::move(task), result);
  runner.start(&detail::wake_after_task, &wake);
  detail::park_until_done(wake);
  return ::duet::detail::take_result(result);
}

}  // namespace duet::fiber
