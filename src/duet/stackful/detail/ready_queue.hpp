// duet::fiber::detail::ReadyQueue — the FIFO of READY fibers, linked through FiberRecord::next_.
//
// Contract: intrusive (no allocation, push/pop O(1)); a fiber is in at most one
// queue at a time; the queue never owns the fibers. One thread.
//
//   ReadyQueue q; q.push(a); q.push(b);
//   FiberRecord* first = q.pop();   // a
#pragma once

#include <cstddef>

#include "duet/stackful/detail/fiber_record.hpp"

namespace duet::fiber::detail {

class ReadyQueue {
 public:
  ReadyQueue() noexcept = default;
  ReadyQueue(const ReadyQueue&) = delete;
  ReadyQueue& operator=(const ReadyQueue&) = delete;
  ReadyQueue(ReadyQueue&&) = delete;
  ReadyQueue& operator=(ReadyQueue&&) = delete;
  ~ReadyQueue() = default;

  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  void push(FiberRecord& fiber) noexcept {
    fiber.next_ = nullptr;
    if (tail_ != nullptr) {
      tail_->next_ = &fiber;
    } else {
      head_ = &fiber;
    }
    tail_ = &fiber;
    ++size_;
  }

  FiberRecord* pop() noexcept {
    FiberRecord* fiber = head_;
    if (fiber == nullptr) return nullptr;
    head_ = fiber->next_;
    if (head_ == nullptr) tail_ = nullptr;
    fiber->next_ = nullptr;
    --size_;
    return fiber;
  }

 private:
  FiberRecord* head_ = nullptr;
  FiberRecord* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace duet::fiber::detail
