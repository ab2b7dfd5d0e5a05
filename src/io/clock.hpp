// duet::now() — the time every deadline and timeout in duet is measured on.
//
// Contract
// - steady_clock::now(), except on a thread where a SimWorld is installed
//   (io/sim_world.hpp): there it is the simulation's virtual clock, which
//   moves only when every loop of the simulation would wait. Code that reads
//   steady_clock directly instead escapes the simulation (docs/ARCHITECTURE.md
//   lists what does, and why).
// - Any thread; one thread-local load on top of the clock read.
//
//   const auto deadline = duet::now() + std::chrono::seconds(1);
#pragma once

#include <chrono>

namespace duet {

namespace detail {
// The installed SimWorld's clock, or null (sim_world.cpp sets it).
extern thread_local const std::chrono::steady_clock::time_point* t_virtual_now;
}  // namespace detail

[[nodiscard]] inline std::chrono::steady_clock::time_point now() noexcept {
  if (const auto* virtual_now = detail::t_virtual_now) [[unlikely]] return *virtual_now;
  return std::chrono::steady_clock::now();
}

}  // namespace duet
