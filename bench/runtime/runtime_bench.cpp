// runtime_bench: what a message between two shards costs.
//
// - runtime/roundtrip/duet_task/<backend>: a task on shard 0 awaits
//   on(shard 1, a task returning 1), i.e. two messages and two resumptions.
// - runtime/roundtrip/duet_fiber/<backend>: the same with fiber::on between
//   two fiber shards (plus a fiber spawned on shard 1 per call).
// - runtime/burst64/<backend>: one turn of shard 0 posts 64 messages to
//   shard 1 and waits for them; counter wakes = wake-ups per burst.
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

duet::Backend backend_of(const benchmark::State& state) {
  return state.range(0) == 0 ? duet::Backend::io_uring : duet::Backend::epoll;
}

duet::Task<int> one() { co_return 1; }

void roundtrip_task(benchmark::State& state) {
  duet::ShardSet set({.shards = 2, .backend = backend_of(state)});
  duet::sync_wait(duet::on(set.shard(0), [&]() -> duet::Task<> {
    for (auto _ : state) benchmark::DoNotOptimize(co_await duet::on(set.shard(1), [] { return one(); }));
  }));
  set.stop();
}

void roundtrip_fiber(benchmark::State& state) {
  duet::ShardSet set({.shards = 2, .backend = backend_of(state)}, duet::fiber::shard_runner());
  std::atomic<bool> done{false};
  duet::fiber::spawn_on(set.shard(0), [&] {
    for (auto _ : state) benchmark::DoNotOptimize(duet::fiber::on(set.shard(1), [] { return 1; }));
    done = true;
  });
  while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  set.stop();
}

void burst64(benchmark::State& state) {
  duet::ShardSet set({.shards = 2, .backend = backend_of(state)});
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
  set.stop();
}

}  // namespace

BENCHMARK(roundtrip_task)->Name("runtime/roundtrip/duet_task")->ArgName("epoll")->Arg(0)->Arg(1)->UseRealTime();
BENCHMARK(roundtrip_fiber)->Name("runtime/roundtrip/duet_fiber")->ArgName("epoll")->Arg(0)->Arg(1)->UseRealTime();
BENCHMARK(burst64)->Name("runtime/burst64")->ArgName("epoll")->Arg(0)->Arg(1)->UseRealTime();

BENCHMARK_MAIN();
