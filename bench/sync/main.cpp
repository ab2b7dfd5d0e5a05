// sync_bench: coordination primitives beside their peers (see meson.build for
// the rows and docs/BENCHMARKS.md, "Coordination", for how to run them).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
