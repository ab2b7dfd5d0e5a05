// duet::detail::OpQueue — an intrusive FIFO of IoOps linked through IoOp::next_.
//
// Contract: no allocation; an op is in at most one queue at a time (next_ is the
// only link). remove() is linear: queues are short (waiters on one fd, or one
// turn's completions) and removal is the rare cancel path. Loop thread only.
//
//   OpQueue q; q.push_back(op);
//   while (IoOp* op = q.pop_front()) run(op);
#pragma once

#include <cstddef>
#include <utility>

#include "duet/io/io_op.hpp"

namespace duet::detail {

class OpQueue {
 public:
  OpQueue() noexcept = default;
  OpQueue(const OpQueue&) = delete;
  OpQueue& operator=(const OpQueue&) = delete;
  OpQueue(OpQueue&& other) noexcept
      : head_(std::exchange(other.head_, nullptr)), tail_(std::exchange(other.tail_, nullptr)) {}
  OpQueue& operator=(OpQueue&& other) noexcept {
    head_ = std::exchange(other.head_, nullptr);
    tail_ = std::exchange(other.tail_, nullptr);
    return *this;
  }
  ~OpQueue() = default;

  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }
  [[nodiscard]] IoOp* front() const noexcept { return head_; }

  void push_back(IoOp& op) noexcept {
    op.next_ = nullptr;
    if (tail_ != nullptr) {
      tail_->next_ = &op;
    } else {
      head_ = &op;
    }
    tail_ = &op;
  }
  IoOp* pop_front() noexcept {
    IoOp* op = head_;
    if (op != nullptr) {
      head_ = op->next_;
      if (head_ == nullptr) tail_ = nullptr;
      op->next_ = nullptr;
    }
    return op;
  }
  // True if op was in the queue (and is now out of it).
  bool remove(IoOp& op) noexcept {
    IoOp* prev = nullptr;
    for (IoOp* cur = head_; cur != nullptr; prev = cur, cur = cur->next_) {
      if (cur != &op) continue;
      (prev != nullptr ? prev->next_ : head_) = cur->next_;
      if (tail_ == cur) tail_ = prev;
      cur->next_ = nullptr;
      return true;
    }
    return false;
  }

 private:
  IoOp* head_ = nullptr;
  IoOp* tail_ = nullptr;
};

}  // namespace duet::detail
