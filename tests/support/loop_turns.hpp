// Turning an EventLoop from a test with a time limit, so a lost wake-up is a
// failed check rather than a hung suite.
//
//   REQUIRE(duet::test::turn_until(loop, [&] { return done; }));
//   duet::test::turn_for(loop, 5ms);   // let whatever is due happen
#pragma once

#include <chrono>

#include "duet/io/event_loop.hpp"

namespace duet::test {

// Turns the loop until done() holds; false if it still does not after `limit`.
template <typename Done>
bool turn_until(EventLoop& loop, Done done, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    loop.run_once(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
  }
  return true;
}

inline void turn_for(EventLoop& loop, std::chrono::milliseconds span) {
  const auto until = std::chrono::steady_clock::now() + span;
  while (std::chrono::steady_clock::now() < until) loop.run_once(until);
}

}  // namespace duet::test
