// duet-kv-sim — the KV server under deterministic simulation: the real
// sans-I/O core and the real driver of either voice, on Backend::sim, with
// seeded clients whose every reply is checked against a model.
//
//   duet-kv-sim --seed S --requests N [--threads T] [--voice stackless|stackful]
//               [--clients C] [--pipeline P] [--crashes K] [--defect NAME]
//
// The server logs every write to its append-only file (appendfsync always,
// on the simulated disk) and the run is K + 2 server processes over one
// world: K die at a seeded point (kill -9: what was not fsynced is lost, the
// last write maybe torn), one stops cleanly, and each next one loads the
// file, after which every client reads its keys back: an acknowledged write
// missing, or a value no sent command explains, fails the run. With
// --threads T the server runs T shards, threads that take turns where the
// seed says (io/sim/sim_threads.hpp), behind one acceptor.
//
// Ends with one line: "seed S requests N trace HASH ok" (exit 0), or
// "seed S requests N trace HASH FAIL replay: <command>" after the reason
// (exit 1). Bad flags: a message and exit 2. The same flags give the same
// run and the same HASH on any machine.
#include <sched.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/io/sim_world.hpp"
#include "kv/detail/key_hash.hpp"
#include "kv/drivers.hpp"
#include "kv/server_runtime.hpp"
#include "kv/sim/sim_clients.hpp"
#include "duet/task/task_scope.hpp"

namespace {

using namespace duet;

struct Flags {
  std::uint64_t seed = 1;
  std::uint64_t requests = 10000;
  std::uint64_t threads = 1;
  std::string voice = "stackless";
  std::uint64_t clients = 8;
  std::uint64_t pipeline = 8;
  std::uint64_t crashes = 2;
  std::string defect;  // test-only: a fixed defect put back (SimOptions::defects)
};

constexpr std::string_view usage =
    "usage: duet-kv-sim --seed S --requests N [--threads T] [--voice stackless|stackful] [--clients C] "
    "[--pipeline P] [--crashes K] [--defect NAME]\n";

bool parse_u64(std::string_view text, std::uint64_t& out, std::uint64_t lo, std::uint64_t hi) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() && out >= lo && out <= hi;
}

std::optional<Flags> parse(int argc, char** argv, std::string& error) {
  Flags f;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) {
      error = std::string(flag) + " needs a value";
      return std::nullopt;
    }
    const std::string_view v = argv[i + 1];
    bool ok = true;
    if (flag == "--seed") {
      ok = parse_u64(v, f.seed, 0, UINT64_MAX);
    } else if (flag == "--requests") {
      ok = parse_u64(v, f.requests, 1, 1'000'000'000);
    } else if (flag == "--threads") {
      ok = parse_u64(v, f.threads, 1, 64);
    } else if (flag == "--voice") {
      ok = v == "stackless" || v == "stackful";
      f.voice = v;
    } else if (flag == "--clients") {
      ok = parse_u64(v, f.clients, 1, 1000);
    } else if (flag == "--pipeline") {
      ok = parse_u64(v, f.pipeline, 1, 1000);
    } else if (flag == "--crashes") {
      ok = parse_u64(v, f.crashes, 0, 100);
    } else if (flag == "--defect") {
      f.defect = v;
    } else {
      error = "unknown flag " + std::string(flag);
      return std::nullopt;
    }
    if (!ok) {
      if (error.empty()) error = "bad value for " + std::string(flag) + ": " + std::string(v);
      return std::nullopt;
    }
  }
  return f;
}

struct Report {
  const Flags* flags = nullptr;
  SimWorld* world = nullptr;
};

std::string replay(const Flags& f) {
  return "duet-kv-sim --seed " + std::to_string(f.seed) + " --requests " + std::to_string(f.requests) +
         " --threads " + std::to_string(f.threads) + " --voice " + f.voice + " --clients " + std::to_string(f.clients) +
         " --pipeline " + std::to_string(f.pipeline) + " --crashes " + std::to_string(f.crashes) + (f.defect.empty() ? "" : " --defect " + f.defect);
}

void print_result(const Flags& f, const SimWorld& world, const std::string& failure) {
  if (!failure.empty()) std::printf("failure: %s\n", failure.c_str());
  std::printf("seed %llu requests %llu trace %016llx %s%s\n", static_cast<unsigned long long>(f.seed),
              static_cast<unsigned long long>(f.requests), static_cast<unsigned long long>(world.trace_hash()),
              failure.empty() ? "ok" : "FAIL replay: ", failure.empty() ? "" : replay(f).c_str());
  std::fflush(stdout);
}

void on_deadlock(SimWorld& world, void* context) {
  const auto* report = static_cast<const Report*>(context);
  print_result(*report->flags, world, "deadlock: every operation waits for something that cannot happen");
  std::_Exit(1);
}

// One server process over the world: the real driver of the chosen voice,
// on Backend::sim, with the clients on its loop. "" or what went wrong.
std::string run_server(const Flags& flags, kv::sim::SimRun& run) {
  const std::string threads = std::to_string(flags.threads);
  const char* server_argv[] = {"duet-kv-sim", "--port", "6379", "--backend", "sim", "--loglevel", "warning",
                               "--threads", threads.c_str(), "--appendonly", "yes", "--appendfsync", "always",
                               "--dir", "/data", "--accept", "single"};  // one listener: SimNet has no SO_REUSEPORT
  std::string error;
  auto options = kv::parse_server_options(static_cast<int>(std::size(server_argv)), server_argv, error);
  if (!options) return "server options: " + error;
  try {
    kv::ServerRuntime rt(std::move(*options));
    TaskScope harness;  // the clients, on the driver's own loop
    rt.set_on_listening([&] { harness.spawn(kv::sim::drive(*EventLoop::current(), run, [&rt] { rt.request_stop(); })); });
    rt.set_on_serving_ended([&] { run.server_stopped = true; });
    rt.set_on_stopped([&] {  // one thread: the driver's loop is still alive, let the clients finish on it
      // (with several, shard 0's loop turned until the clients were done: they kept it busy)
      while (!run.finished && EventLoop::current() != nullptr) EventLoop::current()->run_once(EventLoop::forever);
    });
    const int status = flags.voice == "stackful" ? kv::run_stackful_driver(rt) : kv::run_stackless_driver(rt);
    if (status != 0) return "the server exited with status " + std::to_string(status);
  } catch (const std::exception& e) {
    return std::string("the server threw: ") + e.what();
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  const std::optional<Flags> flags = parse(argc, argv, error);
  if (!flags) {
    std::fprintf(stderr, "duet-kv-sim: %s\n%.*s", error.c_str(), static_cast<int>(usage.size()), usage.data());
    return 2;
  }
  // Latencies of 0-2 ms on a 1 ms grid: completions often fall on one
  // instant, where the seed orders them (and one in ten waits a turn).
  SimOptions sim{.seed = flags->seed,
                 .min_latency = std::chrono::milliseconds(0),
                 .max_latency = std::chrono::milliseconds(2),
                 .latency_quantum = std::chrono::milliseconds(1),
                 .late_wakeup = 0.1,
                 .reset = 0.0001,  // now and then a client's connection is reset
                 .eintr = 0.02,    // and an AOF write is interrupted (the writer retries)
                 .defects = flags->defect};
  std::optional<SimWorld> made;
  try {
    made.emplace(sim);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "duet-kv-sim: %s\n", e.what());
    return 2;
  }
  SimWorld& world = *made;
  // One thread runs at a time (the shards take turns): on one CPU a hand-off
  // between them costs a third of one across CPUs (docs/BENCHMARKS.md).
  if (const int cpu = ::sched_getcpu(); cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)::sched_setaffinity(0, sizeof one, &one);  // best effort: a refusal only costs speed
  }
  // Keys land on shards and in tables by a hash seeded per process (from an
  // address): fixed here, or their placement would differ from run to run.
  kv::detail::set_key_hash_seed(0x5eed0000ULL ^ flags->seed);
  Report report{&*flags, &world};
  world.set_deadlock_handler(on_deadlock, &report);
  kv::sim::SimRun run(world, SocketAddress::parse("127.0.0.1", 6379).value(), static_cast<int>(flags->clients));
  run.max_pipeline = static_cast<int>(flags->pipeline);
  std::string failure;
  // Generations 0..crashes-1 die, the next stops cleanly, the last only audits.
  const auto workloads = static_cast<int>(flags->crashes) + 1;
  std::uint64_t remaining = flags->requests;
  for (int gen = 0; gen <= workloads && failure.empty(); ++gen) {
    if (gen > 0) world.restart();
    const std::uint64_t share = gen == workloads ? 0 : remaining / static_cast<std::uint64_t>(workloads - gen);
    run.begin_generation(gen, share, gen + 1 < workloads, gen == workloads);
    failure = run_server(*flags, run);
    remaining -= run.sent;
    if (failure.empty()) failure = run.failure;
  }
  if (failure.empty() && world.open_sockets() != 0) {
    failure = std::to_string(world.open_sockets()) + " simulated socket(s) left open after the server stopped (a leak)";
  }
  if (failure.empty() && run.replies_checked + run.unknown != flags->requests) {
    failure = "only " + std::to_string(run.replies_checked) + " replies were checked and " +
              std::to_string(run.unknown) + " lost to crashes and resets";
  }
  std::printf("processes %d crashes %llu resets %llu replies checked %llu unknown %llu keys read back %llu\n",
              run.generation + 1, static_cast<unsigned long long>(run.crashes),
              static_cast<unsigned long long>(run.resets),
              static_cast<unsigned long long>(run.replies_checked), static_cast<unsigned long long>(run.unknown),
              static_cast<unsigned long long>(run.audited));
  print_result(*flags, world, failure);
  return failure.empty() ? 0 : 1;
}
