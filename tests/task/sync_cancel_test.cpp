// Cancellation of the stackless primitives' waits: a stop token, with_timeout
// and a destroyed frame, for each kind of wait, and the races between a
// cancel and a hand-off. Same harness as sync_test.cpp (sync_support.hpp).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <system_error>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "sync_support.hpp"
#include "duet/task/event.hpp"
#include "duet/task/latch.hpp"
#include "duet/task/mutex.hpp"
#include "duet/task/semaphore.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/with_timeout.hpp"

using namespace duet::test::sync;
using duet::EventLoop;
using duet::Task;
using namespace std::chrono_literals;

TEMPLATE_TEST_CASE("a stopped waiter leaves the queue at once and the next waiter still gets its wake-up", "",
                   EventWait, LatchWait, MutexWait, SemaphoreWait) {
  EventLoop loop(any_backend());
  TestType kind(loop);
  std::stop_source stop;
  Outcome first, second, early;
  Task<void> a = started(wait_on(kind, stop.get_token(), 0ms, first));
  Task<void> b = started(wait_on(kind, {}, 0ms, second));
  turn_for(loop, 5ms);
  REQUIRE_FALSE(first);
  stop.request_stop();
  REQUIRE(turn_until(loop, [&] { return first.has_value(); }));
  CHECK(*first == std::errc::operation_canceled);
  CHECK_FALSE(second);
  kind.open();
  CHECK_FALSE(second);  // never resumed inside open()
  REQUIRE(turn_until(loop, [&] { return second.has_value(); }));
  CHECK(*second == std::error_code{});
  // A token already stopped fails at once, without suspending.
  Task<void> c = started(wait_on(kind, stop.get_token(), 0ms, early));
  CHECK(early == std::make_error_code(std::errc::operation_canceled));
}

TEMPLATE_TEST_CASE("a wait under with_timeout times out, leaves the queue, and the next waiter is served", "",
                   EventWait, LatchWait, MutexWait, SemaphoreWait) {
  EventLoop loop(any_backend());
  TestType kind(loop);
  Outcome first, second;
  const auto begin = std::chrono::steady_clock::now();
  Task<void> a = started(wait_on(kind, {}, 30ms, first));
  Task<void> b = started(wait_on(kind, {}, 0ms, second));
  REQUIRE(turn_until(loop, [&] { return first.has_value(); }));
  CHECK(std::chrono::steady_clock::now() - begin >= 29ms);
  CHECK(*first == std::errc::timed_out);
  kind.open();
  REQUIRE(turn_until(loop, [&] { return second.has_value(); }));
  CHECK(*second == std::error_code{});
  CHECK(loop.in_flight() == 0);
}

TEMPLATE_TEST_CASE("destroying a task suspended in a wait unlinks it, timer and all", "", EventWait, LatchWait,
                   MutexWait, SemaphoreWait) {
  EventLoop loop(any_backend());
  TestType kind(loop);
  Outcome gone, second;
  Task<void> a = started(wait_on(kind, {}, 10s, gone));
  Task<void> b = started(wait_on(kind, {}, 0ms, second));
  turn_for(loop, 2ms);
  a = Task<void>{};  // the frame goes while queued, its timer armed
  CHECK(loop.in_flight() == 0);
  kind.open();
  REQUIRE(turn_until(loop, [&] { return second.has_value(); }));
  CHECK(*second == std::error_code{});
  CHECK_FALSE(gone);
}

TEST_CASE("a mutex handed to a waiter whose stop lands before it resumes stays with that waiter") {
  EventLoop loop(any_backend());
  MutexWait kind(loop);
  std::stop_source stop;
  Outcome first, second;
  Task<void> a = started(wait_on(kind, stop.get_token(), 0ms, first));
  Task<void> b = started(wait_on(kind, {}, 0ms, second));
  kind.open();          // hands the lock to `a`, whose resumption waits for the loop
  stop.request_stop();  // too late: the hand-off won
  REQUIRE(turn_until(loop, [&] { return first && second; }));
  CHECK(*first == std::error_code{});  // it owned the lock, and passed it on when done
  CHECK(*second == std::error_code{});
  CHECK_FALSE(kind.mutex.is_locked());
}

TEST_CASE("a task destroyed after the hand-off but before resuming passes the mutex or units on") {
  EventLoop loop(any_backend());
  MutexWait mutex(loop);
  SemaphoreWait units(loop);
  Outcome m1, m2, s1, s2;
  Task<void> a = started(wait_on(mutex, {}, 0ms, m1));
  Task<void> b = started(wait_on(mutex, {}, 0ms, m2));
  Task<void> c = started(wait_on(units, {}, 10s, s1));  // its timer is armed, too
  Task<void> d = started(wait_on(units, {}, 0ms, s2));
  mutex.open();  // granted to `a` ...
  units.open();  // ... and 2 units to `c`
  a = Task<void>{};
  c = Task<void>{};  // both go before the loop resumes them
  REQUIRE(turn_until(loop, [&] { return m2 && s2; }));
  CHECK(*m2 == std::error_code{});
  CHECK(*s2 == std::error_code{});
  CHECK_FALSE(m1);
  CHECK_FALSE(s1);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a waiter whose timeout races a hand-off either owns the mutex or leaves it to the next") {
  EventLoop loop(any_backend());
  for (int round = 0; round < 20; ++round) {
    duet::Mutex mutex(loop);
    Outcome racer, next;
    bool racer_owned = false;
    auto holder = [](EventLoop& l, duet::MutexGuard g) -> Task<void> {
      co_await duet::sleep_for(l, 2ms);  // unlocks about when the racer's 2 ms timer fires
      g.unlock();
    };
    Task<void> h = started(holder(loop, mutex.try_lock()));
    Task<void> r = started([](duet::Mutex& m, Outcome& out, bool& owned) -> Task<void> {
      auto lock = co_await duet::with_timeout(m.lock(), 2ms);
      out = code_of(lock);
      owned = lock && lock->owns_lock();
    }(mutex, racer, racer_owned));
    Task<void> n = started([](duet::Mutex& m, Outcome& out) -> Task<void> {
      out = code_of(co_await m.lock());
    }(mutex, next));
    REQUIRE(turn_until(loop, [&] { return racer && next; }));
    CHECK((*racer == std::error_code{} ? racer_owned : *racer == std::errc::timed_out));
    CHECK(*next == std::error_code{});
    CHECK_FALSE(mutex.is_locked());
  }
}
