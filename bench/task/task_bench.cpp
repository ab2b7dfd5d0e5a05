// duet::Task against a bare C++20 coroutine doing the same work, in one binary.
//
//   create_await_destroy: a parent awaits a freshly created child that returns
//     an int at once — frame allocation, start by symmetric transfer, value
//     hand-back, final transfer, frame destruction. duet with this thread's
//     FramePool (the default) and without it (duet_no_pool); the bare
//     coroutine that terminates on exceptions and the one that rethrows them.
//     The _400B rows copy a 400-byte argument into the child's frame.
//   resume_suspend: a running coroutine suspends on an awaiter and is resumed
//     from outside — the cost an I/O completion pays to wake a task.
//
// Run: ./build/bench/task/task_bench --benchmark_repetitions=10
//        --benchmark_report_aggregates_only=true   (see docs/BENCHMARKS.md;
//      bench/task/callgrind.sh counts instructions per iteration)
#include <benchmark/benchmark.h>

#include <array>
#include <cstdlib>
#include <coroutine>
#include <type_traits>

#include "bare_coroutine.hpp"
#include "duet/task/frame_pool.hpp"
#include "duet/task/sync_wait.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"

namespace {

using duet::bench::BareTask;

// ---- create + await + destroy ---------------------------------------------

// The child's argument is copied into its frame: an int (a ~48-byte frame), or
// 400 bytes, about the KV driver's per-request flush() frame (~460 bytes).
struct Payload400 {
  std::array<char, 400> bytes{};
};
int seed(int x) { return x; }
int seed(const Payload400& p) {
  benchmark::DoNotOptimize(p);  // all 400 bytes stay in the frame
  return p.bytes[0];
}
template <typename Arg>
Arg make_arg(int i) {
  Arg arg{};
  if constexpr (std::is_same_v<Arg, int>) {
    arg = i;
  } else {
    arg.bytes[0] = static_cast<char>(i);
  }
  return arg;
}

template <typename Arg>
duet::Task<int> duet_leaf(Arg a) {
  co_return seed(a) + 1;
}

template <typename Arg>
duet::Task<void> duet_parent(benchmark::State& state) {
  int i = 0;
  // KeepRunning rather than a range-for: clang 14 crashes on a range-for over
  // benchmark::State inside a coroutine.
  while (state.KeepRunning()) {
    int v = co_await duet_leaf(make_arg<Arg>(i++));
    benchmark::DoNotOptimize(v);
  }
}

template <typename Arg, bool Rethrows>
BareTask<int, Rethrows> bare_leaf(Arg a) {
  co_return seed(a) + 1;
}

template <typename Arg, bool Rethrows>
BareTask<int, Rethrows> bare_parent(benchmark::State& state) {
  int i = 0;
  while (state.KeepRunning()) {
    int v = co_await bare_leaf<Arg, Rethrows>(make_arg<Arg>(i++));
    benchmark::DoNotOptimize(v);
  }
  co_return 0;
}

// pool_limit 0: this thread's FramePool passes every frame to the global
// operator new/delete, which is what Task did before the pool existed.
template <typename Arg, std::size_t pool_limit>
void create_await_destroy_duet(benchmark::State& state) {
  duet::set_frame_pool_limit(pool_limit);
  duet::sync_wait(duet_parent<Arg>(state));
  duet::set_frame_pool_limit(duet::FramePool::default_limit);
}

template <typename Arg, bool Rethrows>
void create_await_destroy_bare(benchmark::State& state) {
  BareTask<int, Rethrows> parent = bare_parent<Arg, Rethrows>(state);
  parent.start();  // completes synchronously: every await finishes at once
}

// ---- resume / suspend round trip ------------------------------------------

struct Slot {
  std::coroutine_handle<> handle;
  bool stop = false;
};

struct Park {
  Slot* slot;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const noexcept { slot->handle = h; }
  void await_resume() const noexcept {}
};

// The statement after each loop also sidesteps a clang 14 crash when
// splitting a coroutine whose body ends right after such a loop.
duet::Task<void> duet_parker(Slot& slot) {
  while (!slot.stop) co_await Park{&slot};
  slot.handle = {};  // parked no more
}

BareTask<int> bare_parker(Slot& slot) {
  while (!slot.stop) co_await Park{&slot};
  slot.handle = {};
  co_return 0;
}

void resume_round_trips(benchmark::State& state, Slot& slot) {
  for (auto _ : state) slot.handle.resume();
  slot.stop = true;
  slot.handle.resume();
}

void resume_suspend_duet(benchmark::State& state) {
  Slot slot;
  duet::TaskScope scope;
  scope.spawn(duet_parker(slot));
  resume_round_trips(state, slot);
  duet::sync_wait(scope.join());
}

void resume_suspend_bare(benchmark::State& state) {
  Slot slot;
  BareTask<int> parker = bare_parker(slot);
  parker.start();
  resume_round_trips(state, slot);
}

// TASK_BENCH_ITERATIONS=N runs every row exactly N iterations, once: for
// callgrind, which would otherwise count Google Benchmark's iteration search.
void fixed_iterations_from_env(benchmark::internal::Benchmark* b) {
  if (const char* n = std::getenv("TASK_BENCH_ITERATIONS")) b->Iterations(std::atoll(n));
}

}  // namespace

// A row: its name, its function, and fixed iterations when asked.
#define TASK_BENCHMARK(name, ...) BENCHMARK(__VA_ARGS__)->Name(name)->Apply(fixed_iterations_from_env)

constexpr std::size_t pooled = duet::FramePool::default_limit;
TASK_BENCHMARK("task/create_await_destroy/duet", create_await_destroy_duet<int, pooled>);
TASK_BENCHMARK("task/create_await_destroy/duet_no_pool", create_await_destroy_duet<int, 0>);
TASK_BENCHMARK("task/create_await_destroy/bare", create_await_destroy_bare<int, false>);
TASK_BENCHMARK("task/create_await_destroy/bare_rethrow", create_await_destroy_bare<int, true>);
TASK_BENCHMARK("task/create_await_destroy_400B/duet", create_await_destroy_duet<Payload400, pooled>);
TASK_BENCHMARK("task/create_await_destroy_400B/duet_no_pool", create_await_destroy_duet<Payload400, 0>);
TASK_BENCHMARK("task/create_await_destroy_400B/bare", create_await_destroy_bare<Payload400, false>);
TASK_BENCHMARK("task/create_await_destroy_400B/bare_rethrow", create_await_destroy_bare<Payload400, true>);
TASK_BENCHMARK("task/resume_suspend/duet", resume_suspend_duet);
TASK_BENCHMARK("task/resume_suspend/bare", resume_suspend_bare);

BENCHMARK_MAIN();
