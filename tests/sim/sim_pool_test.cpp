// The blocking pool under simulation: its jobs are the world's simulated
// work, run on the world's thread in a seeded order after seeded virtual
// delays, in both voices; a stop before a job starts still cancels it.
#include <catch2/catch.hpp>

#include <chrono>
#include <stop_token>
#include <thread>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/io/sim_world.hpp"
#include "duet/stackful/offload.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/task/offload.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task_scope.hpp"

namespace {

struct PoolRun {
  std::vector<int> order;
  bool all_on_this_thread = true;
  std::chrono::nanoseconds took{0};
};

PoolRun offload_in_tasks(std::uint64_t seed) {
  duet::SimWorld world({.seed = seed});
  duet::EventLoop loop(duet::Backend::sim);
  PoolRun run;
  const auto me = std::this_thread::get_id();
  const auto start = world.now();
  duet::run_until_complete(loop, [](PoolRun& r, std::thread::id home) -> duet::Task<void> {
    duet::TaskScope scope;
    for (int i = 0; i < 8; ++i) {
      scope.spawn([](PoolRun& r2, std::thread::id h, int id) -> duet::Task<void> {
        auto done = co_await duet::offload([&r2, h, id] {
          r2.all_on_this_thread = r2.all_on_this_thread && std::this_thread::get_id() == h;
          r2.order.push_back(id);
          return id;
        });
        if (!done || *done != id) r2.all_on_this_thread = false;
      }(r, home, i));
    }
    co_await scope.join();
  }(run, me));
  run.took = world.now() - start;
  return run;
}

PoolRun offload_in_fibers(std::uint64_t seed) {
  duet::SimWorld world({.seed = seed});
  PoolRun run;
  const auto me = std::this_thread::get_id();
  const auto start = world.now();
  {
    duet::fiber::Scheduler scheduler({.backend = duet::Backend::sim});
    std::vector<duet::fiber::Fiber<void>> fibers;
    for (int i = 0; i < 8; ++i) {
      fibers.push_back(scheduler.spawn([&run, me, i] {
        auto done = duet::fiber::offload([&run, me, i] {
          run.all_on_this_thread = run.all_on_this_thread && std::this_thread::get_id() == me;
          run.order.push_back(i);
          return i;
        });
        if (!done || *done != i) run.all_on_this_thread = false;
      }));
    }
    for (auto& f : fibers) f.join();
  }
  run.took = world.now() - start;
  return run;
}

}  // namespace

TEST_CASE("pool jobs under simulation run on the world's thread, in an order the seed decides", "[sim][pool]") {
  for (auto* voice : {&offload_in_tasks, &offload_in_fibers}) {
    const PoolRun first = voice(5);
    CHECK(first.order.size() == 8);
    CHECK(first.all_on_this_thread);
    CHECK(first.took > std::chrono::nanoseconds(0));  // virtual time, none of it real
    CHECK(voice(5).order == first.order);
    bool another_order = false;
    for (std::uint64_t seed = 6; seed < 40 && !another_order; ++seed) another_order = voice(seed).order != first.order;
    CHECK(another_order);
  }
}

TEST_CASE("a stop before a simulated pool job starts cancels it in both voices", "[sim][pool]") {
  duet::SimWorld world({.seed = 9});
  bool ran = false;
  std::stop_source stop;
  {
    duet::EventLoop loop(duet::Backend::sim);
    auto result = duet::run_until_complete(loop, [](bool& r, std::stop_source& s) -> duet::Task<std::errc> {
      duet::TaskScope scope;
      scope.spawn([](std::stop_source& src) -> duet::Task<void> {
        src.request_stop();
        co_return;
      }(s));
      auto got = co_await duet::offload([&r] { r = true; }, s.get_token());
      co_await scope.join();
      co_return got ? std::errc() : std::errc(got.error().value());
    }(ran, stop));
    CHECK(result == std::errc::operation_canceled);
  }
  CHECK_FALSE(ran);
  std::stop_source fiber_stop;
  {
    duet::fiber::Scheduler scheduler({.backend = duet::Backend::sim});
    std::errc got_error{};
    scheduler.spawn([&] {
      auto stopper = duet::fiber::Scheduler::current()->spawn([&] { fiber_stop.request_stop(); });
      auto got = duet::fiber::offload([&ran] { ran = true; }, fiber_stop.get_token());
      got_error = got ? std::errc() : std::errc(got.error().value());
      stopper.join();
    }).join();
    CHECK(got_error == std::errc::operation_canceled);
  }
  CHECK_FALSE(ran);
}
