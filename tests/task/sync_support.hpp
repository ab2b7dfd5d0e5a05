// Helpers shared by the stackless primitives' tests (sync_test.cpp,
// sync_cancel_test.cpp): a loop per backend, a task started by hand, a time-
// limited run, and one "kind of wait" per primitive behind a common shape.
//
//   EventLoop loop(any_backend());  MutexWait kind(loop);  Outcome out;
//   Task<void> t = started(wait_on(kind, {}, 0ms, out));  kind.open();
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <stop_token>
#include <system_error>

#include "duet/io/event_loop.hpp"
#include "support/loop_turns.hpp"
#include "duet/task/event.hpp"
#include "duet/task/latch.hpp"
#include "duet/task/mutex.hpp"
#include "duet/task/semaphore.hpp"
#include "duet/task/task.hpp"
#include "duet/task/with_timeout.hpp"

namespace duet::test::sync {

using duet::Backend;
using duet::EventLoop;
using duet::Task;
using namespace std::chrono_literals;
using duet::test::turn_for;
using duet::test::turn_until;
using Outcome = std::optional<std::error_code>;

inline Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Started by hand (not through a scope), so a test can drop a suspended frame.
inline Task<void> started(Task<void> task) {
  task.handle().resume();
  return task;
}

// run_until_complete with a time limit: a lost wake-up fails the test (the
// scope still holding the stuck tasks then terminates), it does not hang it.
inline void run_bounded(EventLoop& loop, Task<void> body, std::chrono::milliseconds limit = 20s) {
  Task<void> task = started(std::move(body));
  REQUIRE(turn_until(loop, [&] { return task.done(); }, limit));
  task.handle().promise().result().get();  // rethrows what the body threw
}

template <typename Result>
std::error_code code_of(const Result& r) {
  return r ? std::error_code{} : r.error();
}

// One kind of wait each, on a primitive that starts closed: open() lets one
// (Mutex, Semaphore) or every (Event, Latch) waiter through.
struct EventWait {
  duet::Event event;
  explicit EventWait(EventLoop& loop) : event(loop) {}
  auto wait(std::stop_token token) { return event.wait(std::move(token)); }
  void open() { event.set(); }
};
struct LatchWait {
  duet::Latch latch;
  explicit LatchWait(EventLoop& loop) : latch(loop, 1) {}
  auto wait(std::stop_token token) { return latch.wait(std::move(token)); }
  void open() { latch.count_down(); }
};
struct MutexWait {
  duet::Mutex mutex;
  duet::MutexGuard held;
  explicit MutexWait(EventLoop& loop) : mutex(loop), held(mutex.try_lock()) {}
  auto wait(std::stop_token token) { return mutex.lock(std::move(token)); }
  void open() { held.unlock(); }
};
struct SemaphoreWait {  // 1 unit free, waiters ask for 2
  duet::Semaphore units;
  explicit SemaphoreWait(EventLoop& loop) : units(loop, 1) {}
  auto wait(std::stop_token token) { return units.acquire(2, std::move(token)); }
  void open() { units.release(1); }
};

template <typename Kind>
Task<void> wait_on(Kind& kind, std::stop_token token, std::chrono::milliseconds timeout, Outcome& out) {
  if (timeout.count() > 0) {
    auto r = co_await duet::with_timeout(kind.wait(std::move(token)), timeout);
    out = code_of(r);
  } else {
    auto r = co_await kind.wait(std::move(token));
    out = code_of(r);
  }
}


}  // namespace duet::test::sync
