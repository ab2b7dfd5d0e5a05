// End-to-end test matrix: every test that calls pick_target() runs once per
// executable (stackless, stackful), backend (io_uring, epoll) and thread
// count (--threads 1, the single-threaded server, and --threads 2, the keyspace
// sharded over two threads), through Catch2 GENERATE. The executables come
// from the environment (DUET_KV_STACKLESS, DUET_KV_STACKFUL; set by meson
// test); DUET_KV_THREADS=1 (or 2) runs one thread count only.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace kve2e {

struct Target {
  std::string exe;
  std::string backend;
  int threads = 1;

  // The server's flags for this target (--threads), then a test's own.
  [[nodiscard]] std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    if (threads > 1) extra.insert(extra.begin(), {"--threads", std::to_string(threads)});
    return extra;
  }
  [[nodiscard]] std::string describe() const {
    return exe + " --backend " + backend + " --threads " + std::to_string(threads);
  }
};

inline bool run_threads(int threads) {
  const char* only = std::getenv("DUET_KV_THREADS");
  return only == nullptr || *only == '\0' || std::atoi(only) == threads;
}

inline std::string pick_exe() {
  std::string voice = GENERATE(as<std::string>{}, "DUET_KV_STACKLESS", "DUET_KV_STACKFUL");
  const char* env = std::getenv(voice.c_str());
  if (env == nullptr) FAIL("set " << voice << " to the executable's path (meson test does)");
  return env;
}

// The thread counts to test (filtered by DUET_KV_THREADS).
inline int pick_threads() {
  return GENERATE(filter([](int n) { return run_threads(n); }, values({1, 2})));
}

inline Target pick_target() {
  std::string exe = pick_exe();
  std::string backend = GENERATE(as<std::string>{}, "io_uring", "epoll");
  return {exe, backend, pick_threads()};
}

}  // namespace kve2e
