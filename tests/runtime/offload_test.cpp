// The blocking pool and the stackless offload: results, exceptions, cancel
// before start, back-pressure, shutdown; the caller's loop on both backends.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <latch>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "support/loop_turns.hpp"
#include "duet/task/offload.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"

using namespace std::chrono_literals;

namespace {

duet::Backend any_backend() { return GENERATE(duet::Backend::io_uring, duet::Backend::epoll); }

// A gate the pool's threads wait at until the test opens it.
struct Gate {
  std::atomic<bool> open{false};
  void wait() const {
    for (int i = 0; i < 5000 && !open; ++i) std::this_thread::sleep_for(1ms);
  }
};

}  // namespace

TEST_CASE("offload runs fn on a pool thread and resumes the task on its loop with the value", "[shard]") {
  duet::EventLoop loop(any_backend());
  duet::BlockingPool pool({.threads = 2});
  const auto loop_thread = std::this_thread::get_id();
  std::thread::id ran_on;
  auto task = [&]() -> duet::Task<std::string> {
    auto r = co_await duet::offload(pool, [&] {
      ran_on = std::this_thread::get_id();
      return std::string("blocking");
    });
    CHECK(std::this_thread::get_id() == loop_thread);
    co_return r.value();
  };
  CHECK(duet::run_until_complete(loop, task()) == "blocking");
  CHECK(ran_on != loop_thread);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("offload rethrows fn's exception in the task", "[shard]") {
  duet::EventLoop loop(any_backend());
  auto task = [&]() -> duet::Task<int> {
    auto r = co_await duet::offload([]() -> int { throw std::runtime_error("pool work failed"); });
    co_return r.value();
  };
  CHECK_THROWS_WITH(duet::run_until_complete(loop, task()), "pool work failed");
}

TEST_CASE("a cancelled offload that has not started never runs and resumes with operation_canceled", "[shard]") {
  duet::EventLoop loop(any_backend());
  duet::BlockingPool pool({.threads = 1});
  Gate gate;
  std::atomic<bool> second_ran{false};
  std::stop_source stop;
  bool first_done = false;
  std::error_code second_error;
  bool second_done = false;
  // Named lambdas: a coroutine lambda's captures live in the lambda object.
  auto first = [&]() -> duet::Task<> {
    (void)co_await duet::offload(pool, [&] { gate.wait(); });
    first_done = true;
  };
  auto second = [&]() -> duet::Task<> {
    auto r = co_await duet::offload(pool, [&] { second_ran = true; }, stop.get_token());
    second_error = r.error();
    second_done = true;
  };
  duet::TaskScope scope;
  scope.spawn(first());
  scope.spawn(second());
  REQUIRE(duet::test::turn_until(loop, [&] { return pool.queued() == 1; }));  // the second waits behind the gate
  stop.request_stop();
  REQUIRE(duet::test::turn_until(loop, [&] { return second_done; }));
  CHECK(second_error == std::errc::operation_canceled);
  CHECK_FALSE(first_done);  // resumed at once, while the first still runs
  gate.open = true;
  REQUIRE(duet::test::turn_until(loop, [&] { return first_done; }));
  CHECK_FALSE(second_ran);
}

TEST_CASE("a full pool queue makes offload wait for room; told not to wait, it fails at once", "[shard]") {
  duet::EventLoop loop(any_backend());
  duet::BlockingPool pool({.threads = 1, .queue_capacity = 1});
  Gate gate;
  std::vector<int> order;  // appended on the loop's thread
  std::error_code refused;
  bool refused_done = false;
  duet::TaskScope scope;
  auto caller = [&](int i) -> duet::Task<> {
    auto r = co_await duet::offload(pool, [&, i] {
      if (i == 0) gate.wait();
      return i;
    });
    order.push_back(r.value());
  };
  for (int i = 0; i < 4; ++i) scope.spawn(caller(i));
  // One runs, one is queued, two wait for room: nobody failed.
  REQUIRE(duet::test::turn_until(loop, [&] { return pool.waiting_for_room() == 2; }));
  CHECK(pool.queued() == 1);
  auto impatient = [&]() -> duet::Task<> {
    auto r = co_await duet::offload(pool, [] { return 9; }, {}, duet::WhenFull::fail);
    refused = r.error();
    refused_done = true;
  };
  scope.spawn(impatient());
  REQUIRE(duet::test::turn_until(loop, [&] { return refused_done; }));
  CHECK(refused == std::errc::resource_unavailable_try_again);
  CHECK(order.empty());
  gate.open = true;
  REQUIRE(duet::test::turn_until(loop, [&] { return order.size() == 4; }));
  CHECK(order == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("pool shutdown cancels the jobs that have not started and lets the running one finish", "[shard]") {
  duet::EventLoop loop(any_backend());
  auto pool = std::make_unique<duet::BlockingPool>(duet::BlockingPoolOptions{.threads = 1, .queue_capacity = 1});
  Gate gate;
  std::atomic<int> ran{0};
  std::vector<std::error_code> results;
  duet::TaskScope scope;
  auto caller = [&](int i) -> duet::Task<> {
    auto r = co_await duet::offload(*pool, [&, i] {
      if (i == 0) gate.wait();
      ++ran;
    });
    results.push_back(r.error());
  };
  for (int i = 0; i < 3; ++i) scope.spawn(caller(i));
  REQUIRE(duet::test::turn_until(loop, [&] { return pool->waiting_for_room() == 1; }));
  std::thread closer([&] { pool->shutdown(); });
  REQUIRE(duet::test::turn_until(loop, [&] { return results.size() == 2; }));  // the two that never started
  gate.open = true;
  closer.join();
  REQUIRE(duet::test::turn_until(loop, [&] { return results.size() == 3; }));
  CHECK(ran == 1);
  CHECK(results[0] == std::errc::operation_canceled);
  CHECK(results[1] == std::errc::operation_canceled);
  CHECK_FALSE(results[2]);
  pool.reset();
}

TEST_CASE("a task destroyed while its offload runs waits for it, and one queued never runs", "[shard]") {
  duet::EventLoop loop(any_backend());
  duet::BlockingPool pool({.threads = 1});
  std::atomic<bool> finished{false};
  std::atomic<bool> queued_ran{false};
  std::atomic<bool> started{false};
  auto slow = [&]() -> duet::Task<> {
    (void)co_await duet::offload(pool, [&] {
      started = true;
      std::this_thread::sleep_for(20ms);
      finished = true;
    });
  };
  auto quick = [&]() -> duet::Task<> { (void)co_await duet::offload(pool, [&] { queued_ran = true; }); };
  duet::Task<> running = slow();
  duet::Task<> queued = quick();
  running.handle().resume();  // started by hand, so the test can drop the suspended frames
  queued.handle().resume();
  while (!started) std::this_thread::yield();
  queued = duet::Task<>{};   // cancelled before it starts
  running = duet::Task<>{};  // waits until fn is done with the frame
  CHECK(finished);
  CHECK(loop.in_flight() == 0);
  duet::test::turn_for(loop, 30ms);
  CHECK_FALSE(queued_ran);
}

TEST_CASE("pool shutdown racing cancels of its queued jobs answers each once and never touches a freed job",
          "[shard]") {
  // Each job is freed as soon as it has its answer and the canceller's own
  // cancel call on it has returned (as an offload's frame is freed once its
  // stop callback is back). Shutdown takes the same queue meanwhile; a touch
  // of a job after that free is a heap-use-after-free under ASan.
  struct Job : duet::PoolJob {
    std::atomic<int> refs{2};
    std::atomic<int>* answers = nullptr;
  };
  const auto release = [](Job* job) {
    if (job->refs.fetch_sub(1) == 1) delete job;
  };
  constexpr int rounds = 10;
  constexpr int count = 500;
  for (int round = 0; round < rounds; ++round) {
    duet::BlockingPool pool({.threads = 1, .queue_capacity = count});
    Gate gate;
    std::atomic<int> answers{0};
    struct Blocker : duet::PoolJob {
      Gate* gate;
    } blocker;
    blocker.gate = &gate;
    blocker.run_ = [](duet::PoolJob* job) noexcept { static_cast<Blocker*>(job)->gate->wait(); };
    blocker.done_ = [](duet::PoolJob*, int) noexcept {};
    REQUIRE(pool.submit(blocker, true));
    std::vector<Job*> jobs;
    for (int i = 0; i < count; ++i) {
      auto* job = new Job;
      job->answers = &answers;
      job->run_ = [](duet::PoolJob*) noexcept {};
      job->done_ = [](duet::PoolJob* p, int) noexcept {
        auto* self = static_cast<Job*>(p);
        self->answers->fetch_add(1);
        if (self->refs.fetch_sub(1) == 1) delete self;
      };
      REQUIRE(pool.submit(*job, true));
      jobs.push_back(job);
    }
    std::latch go(2);
    std::thread canceller([&] {
      go.arrive_and_wait();
      for (Job* job : jobs) {  // in queue order: the heads shutdown takes
        pool.cancel(*job);
        release(job);
      }
    });
    go.arrive_and_wait();
    gate.open = true;
    pool.shutdown();
    canceller.join();
    CHECK(answers == count);
  }
}
