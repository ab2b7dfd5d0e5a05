// duet::now() — the time every deadline and timeout in duet is measured on.
//
// Contract
// - steady_clock::now(), except on a thread where a SimWorld is installed
//   (io/sim_world.hpp): there it is the simulation's virtual clock, which
//   moves only when every loop of the simulation would wait. Code that reads
//   steady_clock directly instead escapes the simulation (docs/ARCHITECTURE.md
//   lists what does, and why).
// - wall_now(): system_clock::now(), or under a SimWorld a virtual wall clock
//   that starts at 2026-01-01 00:00:00 UTC with the simulation (for what
//   keeps calendar time: Redis's expiry, TTLs).
// - Any thread; one thread-local load on top of the clock read.
//
//   const auto deadline = duet::now() + std::chrono::seconds(1);
#pragma once

#include <chrono>

namespace duet {

namespace detail {
// The installed SimWorld's clock, or null (sim_world.cpp sets it).
extern thread_local const std::chrono::steady_clock::time_point* t_virtual_now;
// Where a simulation's two clocks start: a fixed point, so that a run does
// not depend on the machine's uptime or date.
inline constexpr auto virtual_start = std::chrono::steady_clock::time_point(std::chrono::hours(24));
inline constexpr auto virtual_wall_start = std::chrono::system_clock::time_point(std::chrono::seconds(1767225600));
}  // namespace detail

[[nodiscard]] inline std::chrono::steady_clock::time_point now() noexcept {
  if (const auto* virtual_now = detail::t_virtual_now) [[unlikely]] return *virtual_now;
  return std::chrono::steady_clock::now();
}

}  // namespace duet

namespace duet {

[[nodiscard]] inline std::chrono::system_clock::time_point wall_now() noexcept {
  if (const auto* virtual_now = detail::t_virtual_now) [[unlikely]] {
    return detail::virtual_wall_start +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(*virtual_now - detail::virtual_start);
  }
  return std::chrono::system_clock::now();
}

}  // namespace duet
