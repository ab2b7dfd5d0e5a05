// ZsetTree at one million members (issue 28): bytes per member and
// nanoseconds per insert, rank_of, select, score_of and erase, for the
// comparison with Redis's skiplist + dict (~110 B per member) in
// docs/BENCHMARKS.md. Members are 10–20 random bytes of [a-z0-9:], scores
// uniform random doubles; the fill runs first, in a fresh heap, so its RSS
// delta is the tree's (the names it inserts are made before).
//
//   ./build/bench/kv/zset_tree_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kv/types/zset_tree.hpp"

using duet::kv::ZsetTree;

namespace {

constexpr std::size_t members = 1'000'000;

struct Data {
  std::vector<std::string> names;
  std::vector<double> scores;
  std::vector<std::size_t> order;  // a random permutation of 0..members-1
  ZsetTree tree;
};

Data& data() {
  static Data d = [] {
    Data x;
    std::mt19937_64 rng(28);
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789:";
    std::uniform_real_distribution<double> score(-1e9, 1e9);
    for (std::size_t i = 0; i < members; ++i) {
      std::string name = std::to_string(i) + ":";  // unique
      std::size_t len = 10 + rng() % 11;
      while (name.size() < len) name += alphabet[rng() % (sizeof alphabet - 1)];
      x.names.push_back(std::move(name));
      x.scores.push_back(score(rng));
      x.order.push_back(i);
    }
    std::shuffle(x.order.begin(), x.order.end(), rng);
    return x;
  }();
  return d;
}

std::size_t rss_bytes() {
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%*s %ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Inserts every member once; reports the three measures of its memory.
void BM_insert_1M(benchmark::State& state) {
  Data& d = data();
  for (auto _ : state) {
    d.tree.clear();
    malloc_trim(0);
    std::size_t rss = rss_bytes();
    std::size_t heap = mallinfo2().uordblks + mallinfo2().hblkhd;  // hblkhd: mmapped blocks (a big table)
    auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < members; ++i) d.tree.insert(d.names[i], d.scores[i]);
    auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(elapsed);
    state.counters["ns_per_insert"] = elapsed * 1e9 / members;
    state.counters["B_per_member_rss"] = static_cast<double>(rss_bytes() - rss) / members;
    state.counters["B_per_member_malloc"] = static_cast<double>(mallinfo2().uordblks + mallinfo2().hblkhd - heap) / members;
    state.counters["B_per_member_estimate"] = static_cast<double>(d.tree.memory_bytes()) / members;
  }
}
BENCHMARK(BM_insert_1M)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_rank_of(benchmark::State& state) {
  Data& d = data();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.tree.rank_of(d.names[d.order[i]]));
    if (++i == members) i = 0;
  }
}
BENCHMARK(BM_rank_of);

void BM_score_of(benchmark::State& state) {
  Data& d = data();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.tree.score_of(d.names[d.order[i]]));
    if (++i == members) i = 0;
  }
}
BENCHMARK(BM_score_of);

void BM_select(benchmark::State& state) {
  Data& d = data();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.tree.select(d.order[i]));
    if (++i == members) i = 0;
  }
}
BENCHMARK(BM_select);

// ZRANGEBYSCORE's first step: the rank of a score bound.
void BM_first_rank_with_score(benchmark::State& state) {
  Data& d = data();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.tree.first_rank_with_score(d.scores[d.order[i]], false));
    if (++i == members) i = 0;
  }
}
BENCHMARK(BM_first_rank_with_score);

// Erases every member in random order (the tree is empty after).
void BM_erase_1M(benchmark::State& state) {
  Data& d = data();
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    for (std::size_t i : d.order) d.tree.erase(d.names[i]);
    auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(elapsed);
    state.counters["ns_per_erase"] = elapsed * 1e9 / members;
  }
}
BENCHMARK(BM_erase_1M)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
