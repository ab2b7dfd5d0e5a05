// Event, Latch, Mutex and Semaphore for fibers (src/duet/stackful/{event,latch,mutex,semaphore}.hpp
// over the voice-neutral cores in src/duet/io/detail): the same cases as the
// stackless tests/task/sync_test.cpp, on both backends. A lost wake-up shows
// as the scheduler's deadlock error (every fiber waiting, nothing to wake one)
// or a timed-out wait, never as a hang. Assertions stay outside blocking calls
// (an assertion must not span a fiber switch).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <system_error>
#include <vector>

#include "duet/stackful/event.hpp"
#include "duet/stackful/latch.hpp"
#include "duet/stackful/mutex.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/semaphore.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace {

using duet::Backend;
using duet::fiber::Scheduler;
using namespace std::chrono_literals;
namespace fiber = duet::fiber;
using Clock = std::chrono::steady_clock;
using Outcome = std::optional<std::error_code>;
constexpr Clock::time_point no_deadline = Clock::time_point::max();

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Runs body on a fiber of a fresh scheduler until every fiber has exited.
template <typename Body>
void on_fibers(Backend backend, Body body) {
  Scheduler scheduler({.backend = backend, .stack_size = 32 * 1024});
  auto main_fiber = scheduler.spawn(std::move(body));
  main_fiber.join();
  scheduler.run();
  CHECK(scheduler.loop().in_flight() == 0);
}

template <typename Result>
std::error_code code_of(const Result& r) {
  return r ? std::error_code{} : r.error();
}

// Yields until done() holds, at most `limit` (a lost wake-up fails, not hangs).
template <typename Done>
bool yield_until(Done done, std::chrono::milliseconds limit = 5s) {
  const auto deadline = Clock::now() + limit;
  while (!done() && Clock::now() < deadline) fiber::sleep_for(100us);
  return done();
}

// One kind of wait each, on a primitive that starts closed: open() lets one
// (Mutex, Semaphore) or every (Event, Latch) waiter through.
struct EventWait {
  fiber::Event event;
  auto wait(const std::stop_token& token, Clock::time_point deadline) { return event.wait_until(deadline, token); }
  void open() { event.set(); }
};
struct LatchWait {
  fiber::Latch latch{1};
  auto wait(const std::stop_token& token, Clock::time_point deadline) { return latch.wait_until(deadline, token); }
  void open() { latch.count_down(); }
};
struct MutexWait {
  fiber::Mutex mutex;
  duet::MutexGuard held = mutex.try_lock();
  auto wait(const std::stop_token& token, Clock::time_point deadline) { return mutex.lock_until(deadline, token); }
  void open() { held.unlock(); }
};
struct SemaphoreWait {  // 1 unit free, waiters ask for 2
  fiber::Semaphore units{1};
  auto wait(const std::stop_token& token, Clock::time_point deadline) {
    return units.acquire_until(2, deadline, token);
  }
  void open() { units.release(1); }
};

// A fiber that waits on kind and records the outcome (the guard, if any, is released at once).
template <typename Kind>
auto waiter(Kind& kind, std::stop_token token, Clock::time_point deadline, Outcome& out) {
  return fiber::spawn([&kind, token, deadline, &out] { out = code_of(kind.wait(token, deadline)); });
}

}  // namespace

TEMPLATE_TEST_CASE("a stopped fiber waiter leaves the queue at once and the next waiter still gets its wake-up", "",
                   EventWait, LatchWait, MutexWait, SemaphoreWait) {
  on_fibers(any_backend(), [] {
    TestType kind;
    std::stop_source stop;
    Outcome first, second;
    auto a = waiter(kind, stop.get_token(), no_deadline, first);
    auto b = waiter(kind, {}, no_deadline, second);
    fiber::yield();
    CHECK_FALSE(first);
    stop.request_stop();
    CHECK(yield_until([&] { return first.has_value(); }));
    CHECK(first == std::make_error_code(std::errc::operation_canceled));
    CHECK_FALSE(second);
    kind.open();
    CHECK_FALSE(second);  // never switched to inside open()
    b.join();
    CHECK(second == std::error_code{});
    a.join();
    // A token already stopped fails at once.
    CHECK(code_of(kind.wait(stop.get_token(), no_deadline)) == std::errc::operation_canceled);
  });
}

TEMPLATE_TEST_CASE("a fiber wait with a timeout times out, leaves the queue, and the next waiter is served", "",
                   EventWait, LatchWait, MutexWait, SemaphoreWait) {
  on_fibers(any_backend(), [] {
    TestType kind;
    Outcome first, second;
    const auto begin = Clock::now();
    auto a = waiter(kind, {}, begin + 30ms, first);
    auto b = waiter(kind, {}, no_deadline, second);
    a.join();
    CHECK(Clock::now() - begin >= 29ms);
    CHECK(first == std::make_error_code(std::errc::timed_out));
    kind.open();
    b.join();
    CHECK(second == std::error_code{});
  });
}

TEST_CASE("a fiber event set before the wait passes at once; set wakes all; reset blocks later waits") {
  on_fibers(any_backend(), [] {
    fiber::Event event;
    event.set();
    CHECK(code_of(event.wait()) == std::error_code{});
    event.reset();
    Outcome w1, w2;
    auto a = fiber::spawn([&] { w1 = code_of(event.wait()); });
    auto b = fiber::spawn([&] { w2 = code_of(event.wait()); });
    fiber::yield();
    CHECK_FALSE(w1);
    event.set();
    a.join();
    b.join();
    CHECK((w1 == std::error_code{} && w2 == std::error_code{}));
    event.reset();
    CHECK(code_of(event.wait_for(5ms)) == std::errc::timed_out);
  });
}

TEST_CASE("a fiber latch releases every waiter when its count reaches zero, and later waits pass") {
  on_fibers(any_backend(), [] {
    fiber::Latch latch(3);
    int released = 0;
    auto a = fiber::spawn([&] { released += latch.wait() ? 1 : 0; });
    auto b = fiber::spawn([&] { released += latch.wait() ? 1 : 0; });
    latch.count_down();
    latch.count_down(1);
    fiber::yield();
    CHECK(released == 0);
    latch.count_down();
    a.join();
    b.join();
    CHECK(released == 2);
    CHECK(latch.try_wait());
    CHECK(code_of(latch.wait()) == std::error_code{});
  });
}

TEST_CASE("a fiber mutex is handed to waiters in arrival order, and an unlocking fiber queues behind them") {
  on_fibers(any_backend(), [] {
    fiber::Mutex mutex;
    std::vector<int> order;
    duet::MutexGuard held = mutex.try_lock();
    CHECK(held.owns_lock());
    CHECK_FALSE(mutex.try_lock().owns_lock());
    std::vector<fiber::Fiber<void>> lockers;
    for (int id = 0; id < 4; ++id) {
      lockers.push_back(fiber::spawn([&, id] {
        for (int i = 0; i < 2; ++i) {
          auto lock = mutex.lock();
          order.push_back(lock ? id : -1);
        }
      }));
    }
    fiber::yield();
    held.unlock();
    for (auto& f : lockers) f.join();
    CHECK(order == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
    CHECK_FALSE(mutex.is_locked());
  });
}

// [wide]: 10,000 live fibers, more than the ThreadSanitizer build can hold (.ci/run).
TEST_CASE("10,000 fibers contending on a mutex across yields keep a counter exact", "[wide]") {
  on_fibers(any_backend(), [] {
    fiber::Mutex mutex;
    long counter = 0;
    std::vector<fiber::Fiber<void>> workers;
    workers.reserve(10'000);
    for (int i = 0; i < 10'000; ++i) {
      workers.push_back(fiber::spawn([&] {
        auto lock = mutex.lock();
        const long seen = counter;
        fiber::yield();  // another fiber runs here; it must not get in
        counter = seen + 1;
      }));
    }
    for (auto& f : workers) f.join();
    CHECK(counter == 10'000);
    CHECK_FALSE(mutex.is_locked());
  });
}

TEST_CASE("a fiber semaphore with 5 units admits at most 5 units' worth of 2,000 fibers asking 1 to 3 each") {
  on_fibers(any_backend(), [] {
    fiber::Semaphore units(5);
    std::size_t in_use = 0, peak = 0, finished = 0;
    std::vector<fiber::Fiber<void>> users;
    for (std::size_t i = 0; i < 2'000; ++i) {
      users.push_back(fiber::spawn([&, n = 1 + i % 3] {
        if (!units.acquire(n)) return;
        in_use += n;
        peak = in_use > peak ? in_use : peak;
        fiber::yield();
        in_use -= n;
        units.release(n);
        ++finished;
      }));
    }
    for (auto& f : users) f.join();
    CHECK(finished == 2'000);
    CHECK(peak > 1);
    CHECK(peak <= 5);
    CHECK(units.available() == 5);
  });
}

TEST_CASE("a fiber semaphore serves requests strictly in order, and a cancelled head lets the next one through") {
  on_fibers(any_backend(), [] {
    fiber::Semaphore units(0);
    std::vector<int> order;
    std::stop_source stop_head;
    Outcome head;
    auto acquirer = [&](std::size_t n, std::stop_token token, int id, Outcome* out) {
      return fiber::spawn([&, n, token, id, out] {
        auto r = units.acquire(n, token);
        if (out != nullptr) *out = code_of(r);
        if (r) order.push_back(id);
      });
    };
    auto a = acquirer(3, {}, 3, nullptr);
    auto b = acquirer(1, {}, 1, nullptr);
    auto c = acquirer(4, stop_head.get_token(), 4, &head);
    auto d = acquirer(2, {}, 2, nullptr);
    fiber::yield();
    units.release(2);  // the head wants 3: nobody behind it may take these
    fiber::yield();
    CHECK(order.empty());
    CHECK_FALSE(units.try_acquire(1));  // nor may a newcomer
    units.release(2);
    a.join();
    b.join();
    CHECK(order == std::vector<int>{3, 1});
    units.release(2);  // 2 free; the head now wants 4 and holds back the 2 ...
    fiber::yield();
    CHECK(order.size() == 2);
    stop_head.request_stop();  // ... until it leaves
    c.join();
    d.join();
    CHECK(order == std::vector<int>{3, 1, 2});
    CHECK(head == std::make_error_code(std::errc::operation_canceled));
  });
}

TEST_CASE("a fiber mutex handed to a waiter whose stop or timeout lands before it runs stays with that waiter") {
  on_fibers(any_backend(), [] {
    MutexWait kind;
    std::stop_source stop;
    Outcome first, second, third;
    auto a = waiter(kind, stop.get_token(), no_deadline, first);
    auto b = waiter(kind, {}, Clock::now() + 1ms, second);
    auto c = waiter(kind, {}, no_deadline, third);
    fiber::yield();
    kind.open();          // hands the lock to `a`, which runs on a later turn
    stop.request_stop();  // too late: the hand-off won
    const auto busy_until = Clock::now() + 3ms;
    while (Clock::now() < busy_until) {
    }  // hold the thread: b's timer expires while a owns the lock
    a.join();
    b.join();
    c.join();
    CHECK(first == std::error_code{});
    CHECK((second == std::error_code{} || second == std::make_error_code(std::errc::timed_out)));
    CHECK(third == std::error_code{});
    CHECK_FALSE(kind.mutex.is_locked());
  });
}

TEST_CASE("under random stops and timeouts, 1,000 fibers on a semaphore never exceed its units and lose none") {
  on_fibers(any_backend(), [] {
    fiber::Semaphore units(3);
    std::vector<std::stop_source> stops(10);
    std::size_t in_use = 0, over = 0, served = 0, failed = 0;
    std::vector<fiber::Fiber<void>> users;
    unsigned seed = 12345;
    for (int i = 0; i < 1'000; ++i) {
      seed = seed * 1103515245u + 12345u;
      const unsigned r = seed >> 8;
      const std::stop_token token = r % 5 == 0 ? stops[r % stops.size()].get_token() : std::stop_token{};
      users.push_back(fiber::spawn([&, r, token] {
        const std::size_t n = 1 + r % 3;
        auto got = r % 2 == 0 ? units.acquire_for(n, std::chrono::microseconds(r % 3000), token)
                              : units.acquire(n, token);
        if (!got) {
          ++failed;
          return;
        }
        in_use += n;
        over += in_use > 3 ? 1 : 0;
        fiber::sleep_for(std::chrono::microseconds(r % 200));
        in_use -= n;
        units.release(n);
        ++served;
      }));
    }
    for (auto& source : stops) {  // stops land while the queue is long
      fiber::sleep_for(1ms);
      source.request_stop();
    }
    for (auto& f : users) f.join();
    CHECK(served + failed == 1'000);
    CHECK(over == 0);
    CHECK(failed > 0);
    CHECK(served > 0);
    CHECK(units.available() == 3);
  });
}
