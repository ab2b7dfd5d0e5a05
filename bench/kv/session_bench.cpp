// Google Benchmark twin of session_batch: wall time per request of one batch of
// 16 pipelined GETs or SETs through duet::kv::Session (see session_workload.hpp).
#include <benchmark/benchmark.h>

#include "kv/session.hpp"
#include "session_workload.hpp"

namespace {

void batch(benchmark::State& st, bool get) {
  duet::kv::ServerState state;
  bench::kv::preload(state);
  auto batches = bench::kv::make_batches(get, static_cast<std::size_t>(st.range(0)), bench::kv::batch_pool);
  duet::kv::Session session(state);
  std::size_t i = 0;
  for (auto _ : st) {
    session.feed(batches[i++ % batches.size()]);
    benchmark::DoNotOptimize(session.output().data());
    session.consume_output(session.output().size());
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

void session_get(benchmark::State& st) { batch(st, true); }
void session_set(benchmark::State& st) { batch(st, false); }

}  // namespace

BENCHMARK(session_get)->Arg(1)->Arg(16);
BENCHMARK(session_set)->Arg(1)->Arg(16);
BENCHMARK_MAIN();
