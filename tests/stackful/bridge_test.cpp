// The bridge between the voices on one loop: a fiber blocks on a Task
// (fiber::await), a task co_awaits a function run on a fiber (run_on_fiber),
// tasks and fibers sharing the scheduler's loop, and the lifetime rules when
// one side goes away first. Every case on both backends. This executable links
// libduet_hook, so the last cases call plain blocking sockets from stackless
// code; outside fibers the hooks pass every call through unchanged.
// The blocks between "// guide:begin NAME" and "// guide:end" are quoted by
// docs/GUIDE.md ("Between the voices"), checked by check_guide_stackful.py.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "hook/hook_support.hpp"
#include <duet/runtime/shard_set.hpp>
#include <duet/stackful/await_task.hpp>
#include <duet/stackful/hook/hook.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/task/on_shard.hpp>
#include <duet/task/run.hpp>
#include <duet/stackful/run_on_fiber.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task.hpp>
#include <duet/task/task_scope.hpp>

using namespace std::chrono_literals;
using duet::Backend;
using duet::Task;
using duet::fiber::Scheduler;
namespace fiber = duet::fiber;

namespace {

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

Task<int> slow_answer(duet::EventLoop& loop) {
  co_await duet::sleep_for(loop, 5ms);
  co_return 42;
}

// guide:begin fiber_awaits_task
duet::Task<std::string> greet(duet::EventLoop& loop, std::string name) {
  co_await duet::sleep_for(loop, 1ms);  // stackless I/O on the scheduler's own loop
  co_return "hello " + name;
}

std::string fiber_side(duet::fiber::Scheduler& scheduler) {
  // On a fiber: blocks this fiber only, until the task ends; returns its value
  // or rethrows its exception.
  return duet::fiber::await(greet(scheduler.loop(), "fiber"));
}
// guide:end

Task<void> slow_fail(duet::EventLoop& loop) {
  co_await duet::sleep_for(loop, 1ms);
  throw std::runtime_error("task failed");
}

Task<std::unique_ptr<int>> slow_box(duet::EventLoop& loop, int v) {
  co_await duet::sleep_for(loop, 1ms);
  co_return std::make_unique<int>(v);
}

// Suspends until someone resumes the handle it leaves in `parked`: a wait
// nothing on the loop can end.
struct ParkForever {
  std::coroutine_handle<>* parked_;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const noexcept { *parked_ = h; }
  void await_resume() const noexcept {}
};

// A fiber awaits a task that nothing can wake: run() reports a deadlock;
// then the task is resumed by hand, so the scheduler can end cleanly.
void check_deadlock_reported(Scheduler& scheduler) {
  std::coroutine_handle<> parked;
  auto stuck = [](std::coroutine_handle<>* p) -> Task<int> {
    co_await ParkForever{p};
    co_return 1;
  };
  auto f = scheduler.spawn([&] { return fiber::await(stuck(&parked)); });
  CHECK_THROWS_AS(scheduler.run(), std::logic_error);
  REQUIRE(parked);
  parked.resume();  // the task ends and readies its fiber
  CHECK(f.join() == 1);
}

}  // namespace

TEST_CASE("a fiber blocked on a task gets its value while the other fibers run") {
  Scheduler scheduler({.backend = any_backend()});
  int ticks = 0;
  bool done = false;
  auto ticker = scheduler.spawn([&] {
    while (!done) {
      ++ticks;
      fiber::yield();
    }
  });
  auto waiter = scheduler.spawn([&] {
    const int v = fiber::await(slow_answer(scheduler.loop()));
    done = true;
    return v;
  });
  CHECK(waiter.join() == 42);
  CHECK(ticks > 1);  // the ticker kept turning during the task's 5 ms sleep
  ticker.join();
}

TEST_CASE("a fiber awaits void, move-only and reference results of tasks") {
  Scheduler scheduler({.backend = any_backend()});
  int target = 0;
  auto by_ref = [](duet::EventLoop& loop, int& t) -> Task<int&> {
    co_await duet::sleep_for(loop, 1ms);
    co_return t;
  };
  auto body = scheduler.spawn([&] {
    std::unique_ptr<int> box = fiber::await(slow_box(scheduler.loop(), 7));
    fiber::await([](duet::EventLoop& loop) -> Task<void> { co_await duet::sleep_for(loop, 1ms); }(scheduler.loop()));
    int& ref = fiber::await(by_ref(scheduler.loop(), target));
    ref = 5;
    return *box;
  });
  CHECK(body.join() == 7);
  CHECK(target == 5);
}

TEST_CASE("a task's exception is rethrown in the fiber that awaits it") {
  Scheduler scheduler({.backend = any_backend()});
  auto f = scheduler.spawn([&] { fiber::await(slow_fail(scheduler.loop())); });
  CHECK_THROWS_WITH(f.join(), "task failed");
}

TEST_CASE("a task that finishes without suspending does not park the fiber") {
  Scheduler scheduler({.backend = any_backend()});
  auto f = scheduler.spawn([] {
    const int v = fiber::await([]() -> Task<int> { co_return 9; }());
    return v + static_cast<int>(fiber::current_id() != 0);
  });
  CHECK(f.join() == 10);
}

TEST_CASE("fiber::await outside any fiber throws instead of blocking the thread") {
  Scheduler scheduler({.backend = any_backend()});
  CHECK_THROWS_AS(fiber::await(slow_answer(scheduler.loop())), std::logic_error);
}

TEST_CASE("a fiber awaiting a task that nothing can wake is reported as a deadlock") {
  Scheduler scheduler({.backend = any_backend()});
  check_deadlock_reported(scheduler);
}

TEST_CASE("a fiber awaits a task that hops to another shard with on() and back, on a plain scheduler") {
  const Backend backend = any_backend();
  duet::ShardSet set({.shards = 1, .backend = backend});
  Scheduler scheduler({.backend = backend});
  // While the task is away nothing is in flight on the scheduler's loop: the
  // awaited reply is what may still wake the fiber, not a deadlock.
  auto hop = [](duet::Shard& shard) -> Task<int> {
    co_return co_await duet::on(shard, []() -> Task<int> { co_return 7; });
  };
  for (int i = 0; i < 20; ++i) {
    int got = 0;
    (void)scheduler.spawn([&] { got = fiber::await(hop(set.shard(0))); });
    REQUIRE_NOTHROW(scheduler.run());
    CHECK(got == 7);
  }
  // The answered hops leave nothing awaited behind: a real deadlock is still one.
  check_deadlock_reported(scheduler);
  set.stop();
}

TEST_CASE("scheduler.run waits for a task a fiber awaits, not for a task's own I/O") {
  Scheduler scheduler({.backend = any_backend()});
  duet::TaskScope scope;
  bool finished = false;
  // Long enough that a slow first run() (TSan, a loaded machine) still ends
  // well before it: the check is that run() does not wait, not how fast it is.
  auto sleeper = [](duet::EventLoop& loop, bool& done) -> Task<void> {
    co_await duet::sleep_for(loop, 1s);
    done = true;
  };
  scope.spawn(sleeper(scheduler.loop(), finished));
  scheduler.spawn([] { fiber::yield(); }).detach();
  scheduler.run();  // the task's sleep is nobody's fiber's work: run() does not wait
  CHECK_FALSE(finished);
  CHECK(scope.running() == 1);
  scheduler.spawn([&] { fiber::await(scope.join()); }).detach();
  scheduler.run();
  CHECK(finished);
  CHECK(scope.running() == 0);
}

TEST_CASE("scheduler.run returns when the tasks left wait on nothing the loop can complete") {
  Scheduler scheduler({.backend = any_backend()});
  duet::TaskScope scope;
  std::coroutine_handle<> parked;
  scope.spawn([](std::coroutine_handle<>* p) -> Task<void> { co_await ParkForever{p}; }(&parked));
  scheduler.run();  // no fiber, no I/O: a task's own wait is its owner's to end
  CHECK(scope.running() == 1);
  REQUIRE(parked);
  parked.resume();
  CHECK(scope.running() == 0);
  duet::run_until_complete(scheduler.loop(), scope.join());
}

TEST_CASE("a task co_awaits a value a fiber computed while blocking") {
  Scheduler scheduler({.backend = any_backend()});
  duet::TaskScope scope;
  int got = 0;
  scope.spawn([](Scheduler& s, int& out) -> Task<void> {
    out = co_await duet::run_on_fiber(s, [](int x) {
      fiber::sleep_for(2ms);  // a blocking call: only this fiber waits
      return 2 * x;
    }, 21);
  }(scheduler, got));
  scheduler.run();  // runs the fiber, then the loop turn that resumes the task
  CHECK(got == 42);
  CHECK(scope.running() == 0);
  duet::run_until_complete(scheduler.loop(), scope.join());
}

TEST_CASE("run_on_fiber carries void, move-only and reference results and exceptions back") {
  Scheduler scheduler({.backend = any_backend()});
  int target = 0;
  auto body = [](Scheduler& s, int& t) -> Task<int> {
    co_await duet::run_on_fiber(s, [] { fiber::yield(); });
    std::unique_ptr<int> box = co_await duet::run_on_fiber(s, [] { return std::make_unique<int>(3); });
    int& ref = co_await duet::run_on_fiber(s, [&t]() -> int& { return t; });
    ref = 4;
    try {
      co_await duet::run_on_fiber(s, [] { throw std::runtime_error("fiber failed"); });
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "fiber failed");
      co_return *box * 10;
    }
    co_return -1;
  };
  auto driver = scheduler.spawn([&] { return fiber::await(body(scheduler, target)); });
  CHECK(driver.join() == 30);
  CHECK(target == 4);
}

// GCC 12 miscompiles a lambda with non-trivial captures (a std::string) written
// inside a co_await expression: it relocates the closure bitwise and frees the
// string's inline buffer (ASan: "attempting free on address which was not
// malloc()-ed"). run_on_fiber's contract steers around it; these are the two ways.
TEST_CASE("values a fiber call needs travel as arguments or in a named lambda") {
  Scheduler scheduler({.backend = any_backend()});
  auto body = [](Scheduler& s, std::string shorter, std::string longer) -> Task<std::size_t> {
    const std::size_t a = co_await duet::run_on_fiber(
        s, [](const std::string& x, std::unique_ptr<int> p) { return x.size() + static_cast<std::size_t>(*p); },
        std::move(shorter), std::make_unique<int>(1));
    auto named = [longer = std::move(longer)] { return longer.size(); };
    const std::size_t b = co_await duet::run_on_fiber(s, std::move(named));
    co_return a + b;
  };
  auto f = scheduler.spawn([&] { return fiber::await(body(scheduler, "INCR", std::string(100, 'k'))); });
  CHECK(f.join() == 105);
}

TEST_CASE("destroying a task that awaits a fiber detaches the fiber, which runs to its end") {
  Scheduler scheduler({.backend = any_backend()});
  bool fiber_ended = false;
  auto call = [](Scheduler& s, bool& ended, bool fail) -> Task<int> {
    co_return co_await duet::run_on_fiber(s, [&ended, fail] {
      fiber::sleep_for(2ms);
      ended = true;
      if (fail) throw std::runtime_error("nobody listens");
      return 1;
    });
  };
  const bool fail = GENERATE(false, true);
  Task<int> task = call(scheduler, fiber_ended, fail);
  task.handle().resume();  // runs to the co_await: the fiber is spawned
  REQUIRE_FALSE(task.done());
  task = Task<int>{};  // the frame, and the awaiter in it, go away
  if (fail) {
    CHECK_THROWS_WITH(scheduler.run(), "nobody listens");  // as a detached fiber's
  } else {
    scheduler.run();
  }
  CHECK(fiber_ended);
  CHECK(scheduler.loop().in_flight() == 0);
}

TEST_CASE("destroying a task that awaits a fiber stops the token the fiber was given") {
  Scheduler scheduler({.backend = any_backend()});
  int slept_fully = -1;
  auto call = [](Scheduler& s, int& full) -> Task<void> {
    co_await duet::run_on_fiber(s, [&full](std::stop_token stop) { full = fiber::sleep_for(5s, stop) ? 1 : 0; });
  };
  Task<void> task = call(scheduler, slept_fully);
  task.handle().resume();
  scheduler.run_until([&] { return scheduler.loop().in_flight() == 1; });  // the fiber sleeps
  const auto start = std::chrono::steady_clock::now();
  task = Task<void>{};
  scheduler.run();
  CHECK(slept_fully == 0);  // cut short by the stop request
  CHECK(std::chrono::steady_clock::now() - start < 2s);
}

TEST_CASE("a fiber call that takes a stop token gets its arguments after it") {
  Scheduler scheduler({.backend = any_backend()});
  auto body = [](Scheduler& s) -> Task<int> {
    co_return co_await duet::run_on_fiber(
        s, [](std::stop_token stop, int x) { return stop.stop_possible() && !stop.stop_requested() ? x : -1; }, 6);
  };
  CHECK(scheduler.spawn([&] { return fiber::await(body(scheduler)); }).join() == 6);
}

TEST_CASE("destroying a task whose fiber has ended but whose result is on its way abandons it") {
  Scheduler scheduler({.backend = any_backend()});
  bool fiber_ended = false;
  auto call = [](Scheduler& s, bool& ended) -> Task<int> {
    co_return co_await duet::run_on_fiber(s, [&ended] {
      ended = true;
      return 1;
    });
  };
  Task<int> task = call(scheduler, fiber_ended);
  task.handle().resume();
  scheduler.run_until([&] { return fiber_ended && scheduler.live_fibers() == 0; });
  REQUIRE(scheduler.loop().in_flight() == 1);  // the nop bringing the result back
  task = Task<int>{};
  CHECK(scheduler.loop().in_flight() == 0);
  scheduler.run();
}

namespace {

using duet::test::blocking_connect;
using duet::test::read_n;
using duet::test::write_all;

// Stackless code over plain blocking POSIX calls: each call runs on a fiber,
// where libduet_hook turns it into a wait of that fiber only.
// guide:begin task_runs_on_fiber
duet::Task<std::string> ask_blocking(duet::fiber::Scheduler& scheduler, std::uint16_t port) {
  co_return co_await duet::run_on_fiber(scheduler, [port] {
    const int fd = blocking_connect(port);  // plain socket + connect, hooked
    const timeval limit{2, 0};              // SO_RCVTIMEO: the fiber's wait gives up
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    write_all(fd, "ping");
    std::string reply = read_n(fd, 4);      // blocks this fiber until the answer
    ::close(fd);
    return reply;                           // or an exception: both reach the task
  });
}
// guide:end

Task<void> answer_blocking(Scheduler& s, int listener, bool& slept) {
  const int conn = co_await duet::run_on_fiber(s, [listener] { return ::accept(listener, nullptr, nullptr); });
  REQUIRE(conn >= 0);
  // A stackless wait while the client's read is blocked: it can only end if
  // that read blocks its fiber and not the thread.
  slept = co_await duet::sleep_for(s.loop(), 5ms);
  co_await duet::run_on_fiber(s, [conn] {
    CHECK(read_n(conn, 4) == "ping");
    CHECK(write_all(conn, "pong"));
    ::close(conn);
  });
}

}  // namespace

TEST_CASE("stackless code calls plain blocking sockets through the hooks on fibers") {
  REQUIRE(duet_hook_installed() == 1);
  Scheduler scheduler({.backend = any_backend()});
  std::uint16_t port = 0;
  const int listener = duet::test::blocking_listener(port);
  const timeval limit{5, 0};  // bounds the accept too, should the hooks ever be missing
  ::setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  bool slept = false;
  std::string reply;
  // guide:begin both_voices_one_loop
  duet::TaskScope scope;  // tasks on scheduler.loop() run while the scheduler runs
  scope.spawn(answer_blocking(scheduler, listener, slept));
  scope.spawn([](duet::fiber::Scheduler& s, std::uint16_t p, std::string& out) -> duet::Task<void> {
    out = co_await ask_blocking(s, p);
  }(scheduler, port, reply));
  // A task's own I/O does not keep run() going: a fiber that awaits the scope does.
  scheduler.spawn([&] { duet::fiber::await(scope.join()); }).detach();
  scheduler.run();  // until no fiber is left
  // guide:end
  ::close(listener);
  CHECK(slept);
  CHECK(reply == "pong");
  CHECK(scope.running() == 0);
  duet::run_until_complete(scheduler.loop(), scope.join());
}

TEST_CASE("the guide's fiber awaits the guide's task") {
  Scheduler scheduler({.backend = any_backend()});
  CHECK(scheduler.spawn([&] { return fiber_side(scheduler); }).join() == "hello fiber");
}
