// Event, Latch, Mutex and Semaphore for tasks (src/duet/task/{event,latch,mutex,semaphore}.hpp
// over the voice-neutral cores in src/duet/io/detail): what each does, FIFO order,
// no lost wake-up under contention. Cancellation, timeouts and destroyed
// frames: sync_cancel_test.cpp. Every case runs on both backends and drives the
// loop itself with a time limit, so a lost wake-up is a failed check, not a
// hung suite. The fiber voice's twin is tests/stackful/sync_test.cpp.
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

TEST_CASE("an event set before the wait lets it through at once; set wakes all; reset blocks later waits") {
  EventLoop loop(any_backend());
  duet::Event event(loop);
  Outcome before, w1, w2, after_reset;
  auto wait_task = [](duet::Event& e, Outcome& out) -> Task<void> { out = code_of(co_await e.wait()); };
  event.set();
  Task<void> a = started(wait_task(event, before));
  CHECK(before == std::error_code{});  // no suspension, no loop turn
  event.reset();
  Task<void> b = started(wait_task(event, w1));
  Task<void> c = started(wait_task(event, w2));
  turn_for(loop, 2ms);
  CHECK_FALSE(w1);
  event.set();
  REQUIRE(turn_until(loop, [&] { return w1 && w2; }));
  event.reset();
  Task<void> d = started(wait_task(event, after_reset));
  turn_for(loop, 2ms);
  CHECK_FALSE(after_reset);
  event.set();
  REQUIRE(turn_until(loop, [&] { return after_reset.has_value(); }));
}

TEST_CASE("a latch releases every waiter when its count reaches zero, and later waits pass") {
  EventLoop loop(any_backend());
  duet::Latch latch(loop, 3);
  Outcome w1, w2, late;
  auto wait_task = [](duet::Latch& l, Outcome& out) -> Task<void> { out = code_of(co_await l.wait()); };
  Task<void> a = started(wait_task(latch, w1));
  Task<void> b = started(wait_task(latch, w2));
  latch.count_down();
  latch.count_down();
  turn_for(loop, 2ms);
  CHECK_FALSE(w1);
  CHECK(latch.count() == 1);
  latch.count_down();
  REQUIRE(turn_until(loop, [&] { return w1 && w2; }));
  CHECK(latch.try_wait());
  Task<void> c = started(wait_task(latch, late));
  CHECK(late == std::error_code{});
}

TEST_CASE("a mutex hands itself to its waiters in arrival order, and an unlocking task queues behind them") {
  EventLoop loop(any_backend());
  duet::Mutex mutex(loop);
  std::vector<int> order;
  auto locker = [](duet::Mutex& m, std::vector<int>& log, int id, int rounds) -> Task<void> {
    for (int i = 0; i < rounds; ++i) {
      auto lock = co_await m.lock();
      log.push_back(lock ? id : -1);
    }
  };
  duet::MutexGuard held = mutex.try_lock();
  REQUIRE(held.owns_lock());
  CHECK_FALSE(mutex.try_lock().owns_lock());
  std::vector<Task<void>> tasks;
  for (int id = 0; id < 4; ++id) tasks.push_back(started(locker(mutex, order, id, 2)));
  held.unlock();
  REQUIRE(turn_until(loop, [&] { return order.size() == 8; }));
  CHECK(order == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
  CHECK_FALSE(mutex.is_locked());
}

TEST_CASE("10,000 tasks contending on a mutex across suspensions keep a counter exact") {
  EventLoop loop(any_backend());
  duet::Mutex mutex(loop);
  long counter = 0;
  auto body = [](EventLoop& l, duet::Mutex& m, long& c) -> Task<void> {
    duet::TaskScope scope;
    for (int i = 0; i < 10'000; ++i) {
      scope.spawn([](EventLoop& lp, duet::Mutex& mx, long& cnt) -> Task<void> {
        auto lock = co_await mx.lock();
        const long seen = cnt;
        co_await duet::sleep_for(lp, 0ms);  // another task runs here; it must not get in
        cnt = seen + 1;
      }(l, m, c));
    }
    co_await scope.join();
  };
  run_bounded(loop, body(loop, mutex, counter));
  CHECK(counter == 10'000);
  CHECK_FALSE(mutex.is_locked());
}

TEST_CASE("a semaphore with 5 units admits at most 5 units' worth of 2,000 tasks asking 1 to 3 each") {
  EventLoop loop(any_backend());
  duet::Semaphore units(loop, 5);
  struct Tally {
    std::size_t in_use = 0, peak = 0, finished = 0, failed = 0;
  } tally;
  auto user = [](EventLoop& l, duet::Semaphore& s, std::size_t n, Tally& t) -> Task<void> {
    if (!co_await s.acquire(n)) {
      ++t.failed;
      co_return;
    }
    t.in_use += n;
    t.peak = t.in_use > t.peak ? t.in_use : t.peak;
    co_await duet::sleep_for(l, 0ms);
    t.in_use -= n;
    s.release(n);
    ++t.finished;
  };
  auto body = [](EventLoop& l, duet::Semaphore& s, Tally& t, auto& make) -> Task<void> {
    duet::TaskScope scope;
    for (std::size_t i = 0; i < 2'000; ++i) scope.spawn(make(l, s, 1 + i % 3, t));
    co_await scope.join();
  };
  run_bounded(loop, body(loop, units, tally, user));
  CHECK(tally.finished == 2'000);
  CHECK(tally.failed == 0);
  CHECK(tally.peak > 1);
  CHECK(tally.peak <= 5);
  CHECK(units.available() == 5);
}

TEST_CASE("a semaphore serves requests strictly in order, and a cancelled head lets the next one through") {
  EventLoop loop(any_backend());
  duet::Semaphore units(loop, 0);
  std::vector<int> order;
  std::stop_source stop_head;
  Outcome head;
  auto acquirer = [](duet::Semaphore& s, std::size_t n, std::stop_token t, std::vector<int>& log, int id,
                     Outcome* out) -> Task<void> {
    auto r = co_await s.acquire(n, std::move(t));
    if (out != nullptr) *out = code_of(r);
    if (r) log.push_back(id);
  };
  Task<void> a = started(acquirer(units, 3, {}, order, 3, nullptr));
  Task<void> b = started(acquirer(units, 1, {}, order, 1, nullptr));
  Task<void> c = started(acquirer(units, 4, stop_head.get_token(), order, 4, &head));
  Task<void> d = started(acquirer(units, 2, {}, order, 2, nullptr));
  units.release(2);  // the head wants 3: nobody behind it may take these
  turn_for(loop, 2ms);
  CHECK(order.empty());
  CHECK_FALSE(units.try_acquire(1));  // nor may a newcomer
  units.release(2);                   // 4: the head (3) goes, 1 left, then the 1
  REQUIRE(turn_until(loop, [&] { return order.size() == 2; }));
  CHECK(order == std::vector<int>{3, 1});
  units.release(2);  // 2 free; the head now wants 4 and holds back the 2 ...
  turn_for(loop, 2ms);
  CHECK(order.size() == 2);
  stop_head.request_stop();  // ... until it leaves
  REQUIRE(turn_until(loop, [&] { return order.size() == 3; }));
  CHECK(order.back() == 2);
  CHECK(*head == std::errc::operation_canceled);
  CHECK(units.available() == 0);
}

TEST_CASE("under random stops and timeouts, 1,000 tasks on a semaphore never exceed its units and lose none") {
  EventLoop loop(any_backend());
  duet::Semaphore units(loop, 3);
  std::vector<std::stop_source> stops(10);
  struct Tally {
    std::size_t in_use = 0, over = 0, served = 0, failed = 0;
  } tally;
  auto user = [](EventLoop& l, duet::Semaphore& s, unsigned seed, std::stop_token token, Tally& t) -> Task<void> {
    const std::size_t n = 1 + seed % 3;
    auto r = seed % 2 == 0 ? co_await duet::with_timeout(s.acquire(n, token), std::chrono::microseconds(seed % 3000))
                           : co_await s.acquire(n, token);
    if (!r) {
      ++t.failed;
      co_return;
    }
    t.in_use += n;
    t.over += t.in_use > 3 ? 1 : 0;
    co_await duet::sleep_for(l, std::chrono::microseconds(seed % 200));
    t.in_use -= n;
    s.release(n);
    ++t.served;
  };
  auto body = [](EventLoop& l, duet::Semaphore& s, std::vector<std::stop_source>& ss, Tally& t,
                 auto& make) -> Task<void> {
    duet::TaskScope scope;
    unsigned seed = 12345;
    for (int i = 0; i < 1'000; ++i) {
      seed = seed * 1103515245u + 12345u;
      const unsigned r = seed >> 8;
      scope.spawn(make(l, s, r, r % 5 == 0 ? ss[r % ss.size()].get_token() : std::stop_token{}, t));
    }
    for (auto& source : ss) {  // stops land while the queue is long
      co_await duet::sleep_for(l, 1ms);
      source.request_stop();
    }
    co_await scope.join();
  };
  run_bounded(loop, body(loop, units, stops, tally, user));
  CHECK(tally.served + tally.failed == 1'000);
  CHECK(tally.over == 0);
  CHECK(tally.failed > 0);
  CHECK(tally.served > 0);
  CHECK(units.available() == 3);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("two tasks passing a mutex back and forth do not starve a timer on the same loop") {
  EventLoop loop(any_backend());
  duet::Mutex mutex(loop);
  bool stop = false;
  long hand_offs = 0;
  auto pinger = [](duet::Mutex& m, const bool& halt, long& count) -> Task<void> {
    while (!halt) {
      auto lock = co_await m.lock();  // each lock is a hand-off from the other task
      ++count;
    }
  };
  auto timer = [](EventLoop& l, bool& halt) -> Task<void> {
    co_await duet::sleep_for(l, 5ms);
    halt = true;
  };
  Task<void> t = started(timer(loop, stop));
  duet::MutexGuard first = mutex.try_lock();
  Task<void> a = started(pinger(mutex, stop, hand_offs));
  Task<void> b = started(pinger(mutex, stop, hand_offs));
  first.unlock();
  REQUIRE(turn_until(loop, [&] { return a.done() && b.done() && t.done(); }));
  CHECK(hand_offs > 64);  // the chain ran on within turns (posted_budget)
}
