// duet::detail::MpscQueue — an intrusive lock-free multi-producer single-consumer FIFO.
//
// Contract
// - Nodes derive from MpscNode and are owned by whoever pushes them; the queue
//   never allocates, copies or frees one. A node is in at most one queue at a
//   time and may be pushed again (anywhere) once pop() has returned it.
// - push() from any thread, wait-free (one exchange and one store). pop() and
//   empty() only on the single consumer's thread.
// - Order: FIFO per producer (two pushes by one thread pop in that order);
//   pushes by different threads interleave in the order of their exchanges.
// - pop() may return nullptr while a push is half done (between its exchange
//   and its link, a few instructions); empty() is false then, so a consumer
//   that polls again before it sleeps never loses a message.
//
// The algorithm is Dmitry Vyukov's intrusive MPSC queue with a stub node:
// producers swing head_ to their node with one exchange and then link the old
// head to it; the consumer walks from tail_ through the links.
//
//   MpscQueue q;  q.push(node);          // any thread
//   while (MpscNode* n = q.pop()) use(n); // the consumer
#pragma once

#include <atomic>

namespace duet::detail {

struct MpscNode {
  std::atomic<MpscNode*> next_{nullptr};
};

class MpscQueue {
 public:
  MpscQueue() noexcept : head_(&stub_), tail_(&stub_) {}
  MpscQueue(const MpscQueue&) = delete;
  MpscQueue& operator=(const MpscQueue&) = delete;
  MpscQueue(MpscQueue&&) = delete;
  MpscQueue& operator=(MpscQueue&&) = delete;
  ~MpscQueue() = default;

  // Any thread. acq_rel on the exchange: release publishes the node's payload
  // (written before push) to whoever links after us; acquire orders our link
  // store after the previous producer's. The link is a release store: the
  // consumer's acquire load of next_ then sees the node's payload.
  void push(MpscNode& node) noexcept {
    node.next_.store(nullptr, std::memory_order_relaxed);
    MpscNode* prev = head_.exchange(&node, std::memory_order_acq_rel);
    prev->next_.store(&node, std::memory_order_release);
  }

  // Consumer only: the oldest node, or nullptr (empty, or a push half done).
  MpscNode* pop() noexcept {
    MpscNode* tail = tail_;
    MpscNode* next = tail->next_.load(std::memory_order_acquire);
    if (tail == &stub_) {  // skip the stub
      if (next == nullptr) return nullptr;
      tail_ = next;
      tail = next;
      next = next->next_.load(std::memory_order_acquire);
    }
    if (next != nullptr) {
      tail_ = next;
      return tail;
    }
    // tail is the last linked node. If a producer has swung head_ past it but
    // not linked yet, wait for the link (next call); else put the stub behind
    // tail so that tail can leave without emptying the chain.
    if (tail != head_.load(std::memory_order_acquire)) return nullptr;
    push(stub_);
    next = tail->next_.load(std::memory_order_acquire);
    if (next == nullptr) return nullptr;  // another producer got between: later
    tail_ = next;
    return tail;
  }

  // Consumer only. True when nothing is queued and no push is under way. A
  // sleeper calls it after a seq_cst fence that follows its "sleeping" store,
  // so a push whose exchange it misses sees the flag (EventLoop's wake rule).
  [[nodiscard]] bool empty() const noexcept {
    return tail_ == &stub_ && head_.load(std::memory_order_acquire) == &stub_;
  }

 private:
  // Producers' end; on its own cache line, away from the consumer's tail_.
  alignas(64) std::atomic<MpscNode*> head_;
  alignas(64) MpscNode* tail_;
  MpscNode stub_;
};

}  // namespace duet::detail
