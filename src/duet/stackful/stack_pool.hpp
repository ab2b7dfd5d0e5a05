// duet::fiber::StackPool — a cache of guarded stacks of one size.
//
// Contract
// - acquire() returns a cached stack if there is one, else maps a new one
//   (Stack::allocate: throws std::system_error when none can be had).
// - release(stack) keeps up to max_cached stacks for reuse and unmaps the
//   rest. The free list is a vector owned by the pool, outside the stacks, so
//   a corrupted stack cannot corrupt the pool and cached stacks stay untouched
//   (their pages are not written by the pool, only by the fibers that ran on
//   them). trim() unmaps every cached stack, returning their memory.
// - One thread (the scheduler's); not thread-safe.
//
//   duet::fiber::StackPool pool(128 * 1024);
//   duet::fiber::Stack s = pool.acquire();
//   pool.release(std::move(s));              // the next acquire() reuses it
#pragma once

#include <cstddef>
#include <vector>

#include "duet/stackful/stack.hpp"

namespace duet::fiber {

class StackPool {
 public:
  static constexpr std::size_t default_stack_size = 128 * 1024;
  static constexpr std::size_t default_max_cached = 1024;

  explicit StackPool(std::size_t stack_size = default_stack_size,
                     std::size_t max_cached = default_max_cached);
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  StackPool(StackPool&&) = delete;
  StackPool& operator=(StackPool&&) = delete;
  ~StackPool() = default;

  [[nodiscard]] Stack acquire();
  void release(Stack stack) noexcept;
  void trim() noexcept { free_.clear(); }

  [[nodiscard]] std::size_t stack_size() const noexcept { return stack_size_; }
  [[nodiscard]] std::size_t cached() const noexcept { return free_.size(); }

 private:
  std::size_t stack_size_;
  std::size_t max_cached_;
  std::vector<Stack> free_;  // reserved up front: release() never allocates
};

}  // namespace duet::fiber
