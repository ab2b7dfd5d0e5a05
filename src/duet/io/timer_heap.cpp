// TimerHeap: the textbook array heap, plus a back-index in each op for removal.
#include "duet/io/detail/timer_heap.hpp"

#include <utility>

namespace duet::detail {

void TimerHeap::place(std::size_t slot, IoOp* op) noexcept {
  ops_[slot] = op;
  op->heap_index_ = static_cast<std::uint32_t>(slot + 1);
}

void TimerHeap::sift_up(std::size_t slot) noexcept {
  IoOp* op = ops_[slot];
  while (slot > 0) {
    const std::size_t parent = (slot - 1) / 2;
    if (!(op->expires_ < ops_[parent]->expires_)) break;
    place(slot, ops_[parent]);
    slot = parent;
  }
  place(slot, op);
}

void TimerHeap::sift_down(std::size_t slot) noexcept {
  IoOp* op = ops_[slot];
  const std::size_t n = ops_.size();
  for (;;) {
    std::size_t child = 2 * slot + 1;
    if (child >= n) break;
    if (child + 1 < n && ops_[child + 1]->expires_ < ops_[child]->expires_) ++child;
    if (!(ops_[child]->expires_ < op->expires_)) break;
    place(slot, ops_[child]);
    slot = child;
  }
  place(slot, op);
}

void TimerHeap::push(IoOp& op) {
  ops_.push_back(&op);
  sift_up(ops_.size() - 1);
}

IoOp* TimerHeap::pop() noexcept {
  if (ops_.empty()) return nullptr;
  IoOp* top = ops_.front();
  remove(*top);
  return top;
}

void TimerHeap::remove(IoOp& op) noexcept {
  if (op.heap_index_ == 0) return;
  const std::size_t slot = op.heap_index_ - 1;
  op.heap_index_ = 0;
  IoOp* last = ops_.back();
  ops_.pop_back();
  if (last == &op) return;
  place(slot, last);
  sift_up(slot);
  sift_down(last->heap_index_ - 1);
}

}  // namespace duet::detail
