#include "duet/stackful/stack_pool.hpp"

#include <utility>

namespace duet::fiber {

StackPool::StackPool(std::size_t stack_size, std::size_t max_cached)
    : stack_size_(stack_size), max_cached_(max_cached) {
  free_.reserve(max_cached_);
}

Stack StackPool::acquire() {
  if (!free_.empty()) {
    Stack stack = std::move(free_.back());
    free_.pop_back();
    return stack;
  }
  return Stack::allocate(stack_size_);
}

void StackPool::release(Stack stack) noexcept {
  if (free_.size() < max_cached_) free_.push_back(std::move(stack));
  // else: `stack` goes out of scope here and is unmapped.
}

}  // namespace duet::fiber
