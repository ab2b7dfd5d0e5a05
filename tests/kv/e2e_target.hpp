// End-to-end test matrix: every test that calls pick_target() runs once per
// executable (stackless, stackful) and backend (io_uring, epoll), through
// Catch2 GENERATE. The executables come from the environment
// (DUET_KV_STACKLESS, DUET_KV_STACKFUL; set by meson test).
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace kve2e {

struct Target {
  std::string exe;
  std::string backend;
};

inline Target pick_target() {
  std::string voice = GENERATE(as<std::string>{}, "DUET_KV_STACKLESS", "DUET_KV_STACKFUL");
  std::string backend = GENERATE(as<std::string>{}, "io_uring", "epoll");
  const char* env = std::getenv(voice.c_str());
  if (env == nullptr) FAIL("set " << voice << " to the executable's path (meson test does)");
  return {env, backend};
}

}  // namespace kve2e
