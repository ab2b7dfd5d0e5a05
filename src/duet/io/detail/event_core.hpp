// duet::detail::EventCore — a manual-reset event: the core of Event and Latch.
//
// Contract
// - set() grants every queued waiter (in arrival order) and lets later waits
//   pass at once until reset(). reset() affects only later waits: a waiter
//   granted by set() stays granted even if reset() comes before it resumes.
// - Nothing is consumed, so give_back is a no-op. Loop thread only (see
//   wait_core.hpp for arrive/withdraw/give_back).
//
//   EventCore ready;
//   ready.set();   // every waiter is granted; later arrive() returns true
#pragma once

#include <cassert>

#include "duet/io/detail/wait_core.hpp"
#include "duet/io/wait_queue.hpp"

namespace duet::detail {

class EventCore final : public WaitCore {
 public:
  EventCore() noexcept = default;
  EventCore(const EventCore&) = delete;
  EventCore& operator=(const EventCore&) = delete;
  EventCore(EventCore&&) = delete;
  EventCore& operator=(EventCore&&) = delete;
  // Waiters hold pointers to the core: destroying it under them is a bug.
  ~EventCore() { assert(queue_.empty() && "duet: a primitive destroyed with waiters"); }

  void set() noexcept {
    set_ = true;
    while (WaitNode* node = queue_.pop_front()) grant(*node);
  }
  void reset() noexcept { set_ = false; }
  [[nodiscard]] bool is_set() const noexcept { return set_; }

  bool arrive(WaitNode& node) noexcept override {
    if (set_) {
      node.state_ = WaitState::granted;
      return true;
    }
    queue_.push_back(node);
    return false;
  }
  bool withdraw(WaitNode& node, WaitState why) noexcept override {
    if (node.state_ != WaitState::queued) return false;
    queue_.remove(node);
    node.state_ = why;
    return true;
  }
  void give_back(WaitNode& /*node*/) noexcept override {}

 private:
  bool set_ = false;
  WaitQueue queue_;
};

}  // namespace duet::detail
