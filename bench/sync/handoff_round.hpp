// duet::bench::HandoffRound — the bookkeeping every sync_bench row shares.
//
// Contract
// - One benchmark iteration is one acquisition (a mutex row) or one round trip
//   (an event row). The worker that just got the lock calls acquired(id): it
//   counts the iteration (benchmark::State::KeepRunning, so whichever task or
//   fiber holds the lock drives the timer) and remembers who had it before.
//   false means the row is over: the worker gives the lock back and leaves.
// - `repeats` (a reported counter) is how often a worker got the lock twice in
//   a row: 0 means every iteration was a hand-off from one owner to another.
//   A row without owners (an event ping-pong) counts with next() instead.
// - One thread: every worker of a row runs on the thread that runs the row.
// - SYNC_BENCH_ITERATIONS=N fixes every row at N iterations, once (for
//   callgrind, which would otherwise also count Google Benchmark's search).
//
//   HandoffRound round(state);
//   while (auto lock = m.lock()) { if (!round.acquired(me)) break; ... }
#pragma once

#include <cstdint>
#include <cstdlib>

#include <benchmark/benchmark.h>

namespace duet::bench {

class HandoffRound {
 public:
  explicit HandoffRound(benchmark::State& state) noexcept : state_(&state) {}
  HandoffRound(const HandoffRound&) = delete;
  HandoffRound& operator=(const HandoffRound&) = delete;
  ~HandoffRound() {
    if (last_ != -1) state_->counters["repeats"] = static_cast<double>(repeats_);
  }

  // One more iteration, or false when the row is over.
  bool next() {
    if (done_) return false;
    done_ = !state_->KeepRunning();  // false exactly once: never ask again
    return !done_;
  }
  bool acquired(int worker) {
    if (!next()) return false;
    if (worker == last_) ++repeats_;
    last_ = worker;
    return true;
  }
  [[nodiscard]] bool done() const noexcept { return done_; }

 private:
  benchmark::State* state_;
  int last_ = -1;
  std::int64_t repeats_ = 0;
  bool done_ = false;
};

inline void fixed_iterations_from_env(benchmark::internal::Benchmark* b) {
  if (const char* n = std::getenv("SYNC_BENCH_ITERATIONS")) b->Iterations(std::atoll(n));
}

}  // namespace duet::bench

// A row: its name, its function, its worker counts, fixed iterations when asked.
#define SYNC_BENCHMARK(name, ...) \
  BENCHMARK(__VA_ARGS__)->Name(name)->Apply(duet::bench::fixed_iterations_from_env)
