// shard_bench: what a message between two shards costs (row names are an
// interface: docs/BENCHMARKS.md and scripts read them).
//
// - shard/roundtrip/duet_task/<backend>: a task on shard 0 awaits
//   on(shard 1, a task returning 1), i.e. two messages and two resumptions.
// - shard/roundtrip/duet_fiber/<backend>: the same with fiber::on between
//   two fiber shards (plus a fiber spawned on shard 1 per call).
//   Shard 0 spins up to 20 µs for each answer before it sleeps
//   (ShardSetOptions' default LoopOptions::reply_spin).
// - shard/roundtrip/duet_task_sleep/<backend>, .../duet_fiber_sleep/<backend>:
//   the same with reply_spin zero: shard 0 sleeps until the answer wakes it.
// - shard/roundtrip/asio (asio_rows.cpp): Asio's post between two
//   io_contexts on two threads, there and back.
// - shard/burst64/<backend>: one-way throughput in bursts: one turn of shard 0
//   posts 64 messages to shard 1 (asleep) and waits for them; items_per_second
//   counts posts, counter wakes = wake-ups of shard 1 per burst (target <= 2).
// The benchmark loop runs on shard 0's thread (real time); on a machine with
// fewer free cores than shards the numbers measure the scheduler as much as
// duet: read them beside each other, not as absolutes.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "duet/runtime/shard_set.hpp"
#include "duet/stackful/on_shard.hpp"
#include "duet/task/on_shard.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/sync_wait.hpp"
#include "duet/task/task.hpp"

namespace {

duet::Task<int> one() { co_return 1; }

// The *_sleep rows: the awaiting shard sleeps until the answer wakes it
// (LoopOptions::reply_spin zero); the others spin up to 20 µs for it first,
// ShardSetOptions' default.
constexpr duet::LoopOptions sleep_loop{.reply_spin = {}};

void roundtrip_task(benchmark::State& state, duet::Backend backend, duet::LoopOptions loop = duet::ShardSetOptions{}.loop) {
  duet::ShardSet set({.shards = 2, .backend = backend, .loop = loop});
  duet::sync_wait(duet::on(set.shard(0), [&]() -> duet::Task<> {
    for (auto _ : state) benchmark::DoNotOptimize(co_await duet::on(set.shard(1), [] { return one(); }));
  }));
  set.stop();
}

void roundtrip_fiber(benchmark::State& state, duet::Backend backend,
                     duet::LoopOptions loop = duet::ShardSetOptions{}.loop) {
  duet::ShardSet set({.shards = 2, .backend = backend, .loop = loop}, duet::fiber::shard_runner());
  std::atomic<bool> done{false};
  duet::fiber::spawn_on(set.shard(0), [&] {
    for (auto _ : state) benchmark::DoNotOptimize(duet::fiber::on(set.shard(1), [] { return 1; }));
    done = true;
  });
  while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  set.stop();
}

void burst64(benchmark::State& state, duet::Backend backend) {
  duet::ShardSet set({.shards = 2, .backend = backend});
  std::atomic<int> arrived{0};
  std::atomic<std::uint64_t> wakes{0};
  duet::sync_wait(duet::on(set.shard(0), [&]() -> duet::Task<> {
    for (auto _ : state) {
      arrived = 0;
      for (int i = 0; i < 64; ++i) set.shard(1).post([&] { arrived.fetch_add(1, std::memory_order_relaxed); });
      // The wake-up goes out at the end of this turn: let the turn end (a
      // timer due at once), then wait for the burst to have run.
      co_await duet::sleep_for(duet::this_shard()->loop(), std::chrono::nanoseconds(0));
      while (arrived.load(std::memory_order_relaxed) != 64) std::this_thread::yield();
    }
    co_return;
  }));
  duet::sync_wait(duet::on(set.shard(1), [&]() -> duet::Task<> {
    wakes = duet::this_shard()->loop().message_wakes();
    co_return;
  }));
  state.counters["wakes"] = benchmark::Counter(static_cast<double>(wakes), benchmark::Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations() * 64);
  set.stop();
}

}  // namespace

BENCHMARK_CAPTURE(roundtrip_task, io_uring, duet::Backend::io_uring)
    ->Name("shard/roundtrip/duet_task/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_task, epoll, duet::Backend::epoll)
    ->Name("shard/roundtrip/duet_task/epoll")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_fiber, io_uring, duet::Backend::io_uring)
    ->Name("shard/roundtrip/duet_fiber/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_fiber, epoll, duet::Backend::epoll)
    ->Name("shard/roundtrip/duet_fiber/epoll")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_task, io_uring_sleep, duet::Backend::io_uring, sleep_loop)
    ->Name("shard/roundtrip/duet_task_sleep/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_task, epoll_sleep, duet::Backend::epoll, sleep_loop)
    ->Name("shard/roundtrip/duet_task_sleep/epoll")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_fiber, io_uring_sleep, duet::Backend::io_uring, sleep_loop)
    ->Name("shard/roundtrip/duet_fiber_sleep/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_fiber, epoll_sleep, duet::Backend::epoll, sleep_loop)
    ->Name("shard/roundtrip/duet_fiber_sleep/epoll")
    ->UseRealTime();
BENCHMARK_CAPTURE(burst64, io_uring, duet::Backend::io_uring)
    ->Name("shard/burst64/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(burst64, epoll, duet::Backend::epoll)
    ->Name("shard/burst64/epoll")
    ->UseRealTime();

BENCHMARK_MAIN();
