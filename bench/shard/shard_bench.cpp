// shard_bench: what a message between two shards costs (row names are an
// interface: docs/BENCHMARKS.md and scripts read them).
//
// - shard/roundtrip/duet_task/<backend>: a task on shard 0 awaits
//   on(shard 1, a task returning 1), i.e. two messages and two resumptions.
// - shard/roundtrip/duet_fiber/<backend>: the same with fiber::on between
//   two fiber shards (plus a fiber spawned on shard 1 per call).
// - shard/roundtrip/duet_task_spin/<backend>, .../duet_fiber_spin/<backend>:
//   the same with shard 0 spinning up to 20 µs for each answer
//   (LoopOptions::reply_spin) instead of sleeping.
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

#include "runtime/shard_set.hpp"
#include "stackful/on_shard.hpp"
#include "task/on_shard.hpp"
#include "task/sleep.hpp"
#include "task/sync_wait.hpp"
#include "task/task.hpp"

namespace {

duet::Task<int> one() { co_return 1; }

// The *_spin rows: the awaiting shard spins up to 20 µs for the answer
// (LoopOptions::reply_spin) instead of sleeping, as the KV server's shards do.
constexpr duet::LoopOptions spin_loop{.reply_spin = std::chrono::microseconds(20)};

void roundtrip_task(benchmark::State& state, duet::Backend backend, duet::LoopOptions loop = {}) {
  duet::ShardSet set({.shards = 2, .backend = backend, .loop = loop});
  duet::sync_wait(duet::on(set.shard(0), [&]() -> duet::Task<> {
    for (auto _ : state) benchmark::DoNotOptimize(co_await duet::on(set.shard(1), [] { return one(); }));
  }));
  set.stop();
}

void roundtrip_fiber(benchmark::State& state, duet::Backend backend, duet::LoopOptions loop = {}) {
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
BENCHMARK_CAPTURE(roundtrip_task, io_uring_spin, duet::Backend::io_uring, spin_loop)
    ->Name("shard/roundtrip/duet_task_spin/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_task, epoll_spin, duet::Backend::epoll, spin_loop)
    ->Name("shard/roundtrip/duet_task_spin/epoll")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_fiber, io_uring_spin, duet::Backend::io_uring, spin_loop)
    ->Name("shard/roundtrip/duet_fiber_spin/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(roundtrip_fiber, epoll_spin, duet::Backend::epoll, spin_loop)
    ->Name("shard/roundtrip/duet_fiber_spin/epoll")
    ->UseRealTime();
BENCHMARK_CAPTURE(burst64, io_uring, duet::Backend::io_uring)
    ->Name("shard/burst64/io_uring")
    ->UseRealTime();
BENCHMARK_CAPTURE(burst64, epoll, duet::Backend::epoll)
    ->Name("shard/burst64/epoll")
    ->UseRealTime();

BENCHMARK_MAIN();
