// duet::detail::SemaphoreCore — counting, FIFO, units handed off: the core of Semaphore and Mutex.
//
// Contract
// - Holds `available` units. A waiter asks for node.count_ units; waiters are
//   served strictly in arrival order: one asking for more than is free holds
//   back those behind it (no overtaking, so a large request cannot starve).
// - release(n) hands the units straight to queued waiters (hand-off): a
//   released unit never becomes "free" while someone waits, so a releaser that
//   immediately asks again queues behind them (no barging). A Mutex is a
//   SemaphoreCore of 1.
// - A waiter asking for more units than will ever exist waits forever: give it
//   a timeout. Loop thread only (see wait_core.hpp for arrive/withdraw/give_back).
//
//   SemaphoreCore units(2);
//   if (units.try_take(1)) { /* ... */ units.release(1); }
#pragma once

#include <cstddef>

#include <cassert>

#include "duet/io/detail/wait_core.hpp"
#include "duet/io/wait_queue.hpp"

namespace duet::detail {

class SemaphoreCore final : public WaitCore {
 public:
  explicit SemaphoreCore(std::size_t available) noexcept : available_(available) {}
  SemaphoreCore(const SemaphoreCore&) = delete;
  SemaphoreCore& operator=(const SemaphoreCore&) = delete;
  SemaphoreCore(SemaphoreCore&&) = delete;
  SemaphoreCore& operator=(SemaphoreCore&&) = delete;
  // Waiters hold pointers to the core: destroying it under them is a bug.
  ~SemaphoreCore() { assert(queue_.empty() && "duet: a primitive destroyed with waiters"); }

  // n units now, if free and nobody waits (a waiter is never overtaken).
  bool try_take(std::size_t n) noexcept {
    if (!queue_.empty() || available_ < n) return false;
    available_ -= n;
    return true;
  }
  void release(std::size_t n) noexcept;
  [[nodiscard]] std::size_t available() const noexcept { return available_; }
  [[nodiscard]] bool has_waiters() const noexcept { return !queue_.empty(); }

  bool arrive(WaitNode& node) noexcept override;
  bool withdraw(WaitNode& node, WaitState why) noexcept override;
  void give_back(WaitNode& node) noexcept override { release(node.count_); }

 private:
  void serve() noexcept;

  std::size_t available_;
  WaitQueue queue_;
};

}  // namespace duet::detail
