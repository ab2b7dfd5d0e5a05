// duet::detail::LatchCore — a single-use countdown: the core of both voices' Latch.
//
// Contract
// - Starts at `count`; count_down(n) subtracts n (more than what is left is a
//   bug: it asserts, and clamps to zero in release builds). At zero it opens
//   for good: every waiter is granted and later waits pass at once.
// - Waiting is waiting on its EventCore (event()). Loop thread only.
//
//   LatchCore done(3);
//   done.count_down(); done.count_down(2);   // done.event().is_set()
#pragma once

#include <cassert>
#include <cstddef>

#include "duet/io/detail/event_core.hpp"

namespace duet::detail {

class LatchCore {
 public:
  explicit LatchCore(std::size_t count) noexcept : count_(count) {
    if (count_ == 0) open_.set();
  }

  void count_down(std::size_t n = 1) noexcept {
    assert(n <= count_ && "duet: Latch counted down below zero");
    count_ -= n < count_ ? n : count_;
    if (count_ == 0) open_.set();
  }
  [[nodiscard]] std::size_t count() const noexcept { return count_; }
  [[nodiscard]] EventCore& event() noexcept { return open_; }

 private:
  std::size_t count_;
  EventCore open_;
};

}  // namespace duet::detail
