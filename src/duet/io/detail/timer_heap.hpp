// duet::detail::TimerHeap — IoOps ordered by IoOp::expires_ (a binary min-heap).
//
// Contract: each op remembers its slot in heap_index_ (1-based, 0 = absent), so
// remove() is O(log n) — the common case, since most per-op timeouts never fire.
// Equal deadlines pop in no particular order. Loop thread only.
//
//   heap.push(op);                          // op.expires_ set by the caller
//   while (!heap.empty() && heap.top()->expires_ <= now) fire(heap.pop());
#pragma once

#include <cstddef>
#include <vector>

#include "duet/io/io_op.hpp"

namespace duet::detail {

class TimerHeap {
 public:
  TimerHeap() = default;
  TimerHeap(const TimerHeap&) = delete;
  TimerHeap& operator=(const TimerHeap&) = delete;
  TimerHeap(TimerHeap&&) = delete;
  TimerHeap& operator=(TimerHeap&&) = delete;
  ~TimerHeap() = default;

  [[nodiscard]] bool empty() const noexcept { return ops_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return ops_.size(); }
  [[nodiscard]] IoOp* top() const noexcept { return ops_.empty() ? nullptr : ops_.front(); }
  [[nodiscard]] static bool contains(const IoOp& op) noexcept { return op.heap_index_ != 0; }

  void push(IoOp& op);
  IoOp* pop() noexcept;
  void remove(IoOp& op) noexcept;

 private:
  void place(std::size_t slot, IoOp* op) noexcept;
  void sift_up(std::size_t slot) noexcept;
  void sift_down(std::size_t slot) noexcept;

  std::vector<IoOp*> ops_;
};

}  // namespace duet::detail
