// Resident memory per idle fiber: 10,000 fibers each run until they park (the
// state of a connection fiber waiting for its next request), then the process's
// resident set is compared with before. Fresh stacks (a new scheduler and pool),
// so nothing is inherited from earlier benchmarks. 10,000 guarded stacks are
// 20,000 mappings: inside vm.max_map_count = 65530.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include <benchmark/benchmark.h>

#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace {

long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  long resident = 0;
  statm >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

void idle_fiber_memory(benchmark::State& state) {
  constexpr int fibers = 10'000;
  for (auto _ : state) {
    duet::fiber::Scheduler scheduler;
    std::vector<duet::fiber::detail::FiberRecord*> parked;
    parked.reserve(fibers);
    const long before = resident_bytes();
    for (int i = 0; i < fibers; ++i) {
      scheduler.spawn([&parked] {
        parked.push_back(duet::fiber::Scheduler::current()->running());
        duet::fiber::Scheduler::current()->park();
      }).detach();
    }
    scheduler.run_until([&] { return parked.size() == fibers; });
    const long after = resident_bytes();
    state.counters["resident_bytes_per_idle_fiber"] = static_cast<double>(after - before) / fibers;
    for (auto* fiber : parked) scheduler.make_ready(*fiber);
    scheduler.run();
  }
}
BENCHMARK(idle_fiber_memory)->Name("memory/idle_fiber_10000")->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
