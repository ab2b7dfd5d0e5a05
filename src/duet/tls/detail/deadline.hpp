// duet::detail::Deadline — one timeout spread over the several socket calls a
// TLS operation makes (a handshake is a few round trips; each gets what is left).
#pragma once

#include <chrono>

#include "duet/io/clock.hpp"

namespace duet::detail {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  // 0 (or negative) = no deadline.
  explicit Deadline(std::chrono::nanoseconds timeout) noexcept
      : set_(timeout.count() > 0), at_(set_ ? duet::now() + timeout : Clock::time_point{}) {}

  [[nodiscard]] bool none() const noexcept { return !set_; }
  [[nodiscard]] Clock::time_point at() const noexcept { return at_; }  // meaningful unless none()
  // What is left, at least 1 ns: an expired deadline makes the next call time out at once.
  [[nodiscard]] std::chrono::nanoseconds left() const noexcept {
    const auto rest = std::chrono::duration_cast<std::chrono::nanoseconds>(at_ - duet::now());
    return rest.count() > 0 ? rest : std::chrono::nanoseconds{1};
  }

 private:
  bool set_;
  Clock::time_point at_;
};

}  // namespace duet::detail
