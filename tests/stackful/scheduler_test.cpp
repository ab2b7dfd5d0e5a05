// Fibers and the per-thread scheduler: spawn, yield, join, exceptions, order.
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "support/lifetime_counter.hpp"

namespace {
using duet::fiber::Fiber;
using duet::fiber::Scheduler;
using duet::test::LifetimeCounter;
using duet::test::Tracked;
}  // namespace

TEST_CASE("join returns the value the fiber's callable returned, with the arguments it was given") {
  Scheduler scheduler;
  auto fiber = scheduler.spawn([](int a, std::string b) { return b + std::to_string(a); }, 42, std::string("x"));
  CHECK(fiber.join() == "x42");
  CHECK_FALSE(fiber.joinable());
}

TEST_CASE("join rethrows the exception that escaped the fiber") {
  Scheduler scheduler;
  auto fiber = scheduler.spawn([]() -> int { throw std::runtime_error("boom"); });
  CHECK_THROWS_WITH(fiber.join(), "boom");
  CHECK(scheduler.live_fibers() == 0);
}

TEST_CASE("a fiber does not start until the scheduler runs") {
  Scheduler scheduler;
  bool started = false;
  auto fiber = scheduler.spawn([&] { started = true; });
  CHECK_FALSE(started);
  scheduler.run();
  CHECK(started);
  CHECK(fiber.done());
}

TEST_CASE("yield runs the ready fibers in FIFO order") {
  Scheduler scheduler;
  std::vector<int> order;
  for (int id = 0; id < 3; ++id) {
    scheduler.spawn([&order, id] {
      for (int round = 0; round < 3; ++round) {
        order.push_back(10 * round + id);
        duet::fiber::yield();
      }
    }).detach();
  }
  scheduler.run();
  CHECK(order == std::vector<int>{0, 1, 2, 10, 11, 12, 20, 21, 22});
}

TEST_CASE("a fiber can join another fiber and receive its result") {
  Scheduler scheduler;
  auto outer = scheduler.spawn([] {
    auto inner = duet::fiber::spawn([] {
      duet::fiber::yield();
      return std::make_unique<int>(7);
    });
    return *inner.join() * 6;
  });
  CHECK(outer.join() == 42);
}

TEST_CASE("the callable and its arguments are destroyed exactly once, on the fiber") {
  LifetimeCounter counter;
  bool on_fiber_at_destruction = false;
  struct Probe {
    bool* flag_;
    Probe(const Probe&) = delete;
    Probe(Probe&& other) noexcept : flag_(std::exchange(other.flag_, nullptr)) {}
    explicit Probe(bool* flag) : flag_(flag) {}
    Probe& operator=(const Probe&) = delete;
    Probe& operator=(Probe&&) = delete;
    ~Probe() {
      if (flag_ != nullptr) *flag_ = duet::fiber::in_fiber();
    }
  };
  {
    Scheduler scheduler;
    auto fiber = scheduler.spawn([tracked = Tracked(counter)](Tracked, Probe) {}, Tracked(counter),
                                 Probe(&on_fiber_at_destruction));
    fiber.join();
    CHECK(counter.alive() == 0);
  }
  CHECK(counter.alive() == 0);
  CHECK(on_fiber_at_destruction);
}

TEST_CASE("an exception from a detached fiber is rethrown by run") {
  Scheduler scheduler;
  scheduler.spawn([] { throw std::logic_error("detached failure"); }).detach();
  int finished = 0;
  scheduler.spawn([&] { ++finished; }).detach();
  CHECK_THROWS_WITH(scheduler.run(), "detached failure");
  CHECK(finished == 1);
  CHECK_NOTHROW(scheduler.run());  // reported once
}

TEST_CASE("fibers that all wait with nothing to wake them are reported as a deadlock") {
  Scheduler scheduler;
  duet::fiber::detail::FiberRecord* stuck = nullptr;
  scheduler.spawn([&] {
    stuck = Scheduler::current()->running();
    Scheduler::current()->park();
  }).detach();
  CHECK_THROWS_AS(scheduler.run(), std::logic_error);
  REQUIRE(stuck != nullptr);
  scheduler.make_ready(*stuck);  // wake it so the scheduler can end cleanly
  scheduler.run();
  CHECK(scheduler.live_fibers() == 0);
}

// [wide]: 10,000 live fibers, more than the ThreadSanitizer build can hold (.ci/run).
TEST_CASE("10,000 fibers ping-pong in pairs through yield", "[wide]") {
  Scheduler scheduler(duet::fiber::SchedulerOptions{.stack_size = 32 * 1024});
  constexpr int pairs = 5000;
  constexpr int rounds = 20;
  std::vector<int> turn(pairs, 0);
  std::vector<int> hits(pairs, 0);
  for (int p = 0; p < pairs; ++p) {
    for (int side = 0; side < 2; ++side) {
      scheduler.spawn([&, p, side] {
        for (int r = 0; r < rounds; ++r) {
          while (turn[p] != side) duet::fiber::yield();
          ++hits[p];
          turn[p] = 1 - side;
        }
      }).detach();
    }
  }
  CHECK(scheduler.live_fibers() == 2 * pairs);
  scheduler.run();
  CHECK(scheduler.live_fibers() == 0);
  for (int p = 0; p < pairs; ++p) REQUIRE(hits[p] == 2 * rounds);
}

// Aimed at the ThreadSanitizer build (CI), a plain two-thread test elsewhere.
// TSan keeps a shadow call stack per thread, and per fiber only if told of
// every switch: unannotated, the frames of all the parked fibers pile up on
// the thread's one shadow stack and overflow it (a CHECK failure past 65,536
// frames). `local` is shared by one scheduler's fibers without atomics — no
// race, as they run one at a time, which TSan knows only because each switch
// is a happens-before edge.
namespace {
constexpr int parked_depth = 100;

[[gnu::noinline]] int descend_and_yield(int depth, int& local) {
  if (depth == 0) {
    ++local;
    duet::fiber::yield();
    ++local;
    return 0;
  }
  return descend_and_yield(depth - 1, local) + 1;  // not a tail call: each level keeps its frame
}
}  // namespace

TEST_CASE("fibers parked 100 calls deep on schedulers of two threads resume and share data") {
  constexpr int per_thread = 1000;
  std::mutex mutex;
  int total = 0;  // both threads' fibers, under the mutex
  auto run_fibers = [&] {
    Scheduler scheduler;
    int local = 0;
    for (int i = 0; i < per_thread; ++i) {
      scheduler.spawn([&] {
        const int depth = descend_and_yield(parked_depth, local);
        const std::lock_guard lock(mutex);
        total += depth;
      }).detach();
    }
    scheduler.run();
    return local;
  };
  int other_local = 0;
  std::thread other([&] { other_local = run_fibers(); });
  const int own_local = run_fibers();
  other.join();
  CHECK(own_local == 2 * per_thread);
  CHECK(other_local == 2 * per_thread);
  CHECK(total == 2 * per_thread * parked_depth);
}

TEST_CASE("a second scheduler on the same thread is refused") {
  Scheduler scheduler;
  CHECK_THROWS_AS(Scheduler(), std::logic_error);
}

TEST_CASE("stacks of finished fibers are reused") {
  Scheduler scheduler;
  for (int i = 0; i < 100; ++i) scheduler.spawn([] {}).join();
  CHECK(scheduler.stacks().cached() == 1);
}

TEST_CASE("joining an empty or already joined handle throws instead of crashing") {
  Scheduler scheduler;
  auto fiber = scheduler.spawn([] { return 1; });
  CHECK(fiber.join() == 1);
  CHECK_THROWS_AS(fiber.join(), std::logic_error);
  Fiber<int> empty;
  CHECK_THROWS_AS(empty.join(), std::logic_error);
}
