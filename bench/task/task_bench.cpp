// duet::Task against a bare C++20 coroutine doing the same work, in one binary.
//
//   create_await_destroy: a parent awaits a freshly created child that returns
//     an int at once — frame allocation, start by symmetric transfer, value
//     hand-back, final transfer, frame destruction.
//   resume_suspend: a running coroutine suspends on an awaiter and is resumed
//     from outside — the cost an I/O completion pays to wake a task.
//
// Run: ./build/bench/task/task_bench --benchmark_repetitions=10
//        --benchmark_report_aggregates_only=true   (see docs/BENCHMARKS.md)
#include <benchmark/benchmark.h>

#include <coroutine>

#include "bare_coroutine.hpp"
#include "task/sync_wait.hpp"
#include "task/task.hpp"
#include "task/task_scope.hpp"

namespace {

using duet::bench::BareTask;

// ---- create + await + destroy ---------------------------------------------

duet::Task<int> duet_leaf(int x) { co_return x + 1; }

duet::Task<void> duet_parent(benchmark::State& state) {
  int i = 0;
  // KeepRunning rather than a range-for: clang 14 crashes on a range-for over
  // benchmark::State inside a coroutine.
  while (state.KeepRunning()) {
    int v = co_await duet_leaf(i++);
    benchmark::DoNotOptimize(v);
  }
}

BareTask<int> bare_leaf(int x) { co_return x + 1; }

BareTask<int> bare_parent(benchmark::State& state) {
  int i = 0;
  while (state.KeepRunning()) {
    int v = co_await bare_leaf(i++);
    benchmark::DoNotOptimize(v);
  }
  co_return 0;
}

void create_await_destroy_duet(benchmark::State& state) { duet::sync_wait(duet_parent(state)); }

void create_await_destroy_bare(benchmark::State& state) {
  BareTask<int> parent = bare_parent(state);
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

}  // namespace

BENCHMARK(create_await_destroy_duet)->Name("task/create_await_destroy/duet");
BENCHMARK(create_await_destroy_bare)->Name("task/create_await_destroy/bare");
BENCHMARK(resume_suspend_duet)->Name("task/resume_suspend/duet");
BENCHMARK(resume_suspend_bare)->Name("task/resume_suspend/bare");

BENCHMARK_MAIN();
