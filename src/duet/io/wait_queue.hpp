// duet::WaitNode / duet::WaitQueue — one waiter of a coordination primitive, and their FIFO.
//
// Contract
// - A WaitNode is intrusive, like IoOp: it lives in the waiting voice's own
//   memory (a stackless awaiter in the task frame, or a blocking call's frame
//   on the fiber's stack). A primitive never allocates, copies or frees one; it
//   only links it through next_/prev_ while the node is queued.
// - state_ tells where the node is: queued (in a primitive's queue), or out of
//   it with its outcome: granted (the primitive gave it what it waited for),
//   cancelled (stop request) or timed_out. Only the primitive's core moves a
//   node out of `queued` (detail/wait_core.hpp).
// - wake_(node) runs exactly once, when the core grants a queued node. It is
//   the only point where the voices differ (as IoOp::complete_): it must not
//   resume the waiter inline — it *schedules* the resumption (the stackless
//   voice posts a user-space completion to the loop, a fiber goes to its
//   scheduler's ready queue). Called from inside set()/unlock()/release(), an
//   inline resume would recurse through every waiter and let the releasing
//   code starve the rest.
// - One thread: the primitive's, which is the loop's thread of every waiter.
//   How a waiter finds its loop is the voice's business: a stackless primitive
//   is built on its loop (duet::Mutex m(loop)), a fiber's wait uses the
//   running fiber's Scheduler. Nothing here assumes one loop per primitive, so
//   a cross-shard Event (issue 14) can keep this node and make wake_ post to
//   the waiter's own loop; it will need a lock or an MPSC queue in its core.
//
//   duet::WaitQueue q;  duet::WaitNode n;  n.wake_ = my_wake;
//   q.push_back(n);                       // n.state_ == WaitState::queued
//   WaitNode* first = q.pop_front();      // FIFO; remove(n) is O(1) for cancels
#pragma once

#include <cstddef>
#include <utility>

namespace duet {

enum class WaitState : unsigned char { idle, queued, granted, cancelled, timed_out };

struct WaitNode {
  using Wake = void (*)(WaitNode* node) noexcept;

  WaitNode() noexcept = default;
  // A node is an address the queue holds: never copied or moved.
  WaitNode(const WaitNode&) = delete;
  WaitNode& operator=(const WaitNode&) = delete;
  WaitNode(WaitNode&&) = delete;
  WaitNode& operator=(WaitNode&&) = delete;
  ~WaitNode() = default;

  WaitNode* next_ = nullptr;
  WaitNode* prev_ = nullptr;
  Wake wake_ = nullptr;
  std::size_t count_ = 1;  // what the waiter asks for (Semaphore units; 1 otherwise)
  WaitState state_ = WaitState::idle;
  void* context_ = nullptr;  // free for the voice (an awaiter, a fiber)
  void* payload_ = nullptr;  // the core's: what a hand-off moves (a Channel's value slot)
};

// Doubly linked, so that a cancelled waiter leaves from anywhere in O(1): a
// stop request on 10,000 waiters must not cost 10,000² steps.
class WaitQueue {
 public:
  WaitQueue() noexcept = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;
  WaitQueue(WaitQueue&&) = delete;
  WaitQueue& operator=(WaitQueue&&) = delete;
  ~WaitQueue() = default;

  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }
  [[nodiscard]] WaitNode* front() const noexcept { return head_; }

  void push_back(WaitNode& node) noexcept {
    node.next_ = nullptr;
    node.prev_ = tail_;
    (tail_ != nullptr ? tail_->next_ : head_) = &node;
    tail_ = &node;
    node.state_ = WaitState::queued;
  }
  // Unlinks the first node; its state is the caller's to set.
  WaitNode* pop_front() noexcept {
    WaitNode* node = head_;
    if (node != nullptr) remove(*node);
    return node;
  }
  // node must be in this queue.
  void remove(WaitNode& node) noexcept {
    (node.prev_ != nullptr ? node.prev_->next_ : head_) = node.next_;
    (node.next_ != nullptr ? node.next_->prev_ : tail_) = node.prev_;
    node.next_ = nullptr;
    node.prev_ = nullptr;
  }

 private:
  WaitNode* head_ = nullptr;
  WaitNode* tail_ = nullptr;
};

}  // namespace duet
