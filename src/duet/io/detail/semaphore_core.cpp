// SemaphoreCore: FIFO service of unit requests, shared by both voices'
// Semaphore and Mutex.
#include "duet/io/detail/semaphore_core.hpp"

namespace duet::detail {

bool SemaphoreCore::arrive(WaitNode& node) noexcept {
  if (try_take(node.count_)) {
    node.state_ = WaitState::granted;
    return true;
  }
  queue_.push_back(node);
  return false;
}

void SemaphoreCore::release(std::size_t n) noexcept {
  available_ += n;
  serve();
}

// Grants from the head while the head's request fits. grant() only schedules
// the waiter (wake_ never resumes inline), so nothing re-enters the queue here.
void SemaphoreCore::serve() noexcept {
  while (WaitNode* head = queue_.front()) {
    if (head->count_ > available_) return;
    available_ -= head->count_;
    queue_.pop_front();
    grant(*head);
  }
}

// A head that leaves may have been what held the others back (it asked for
// more than was free): serve again, or their wake-up would be lost until the
// next release.
bool SemaphoreCore::withdraw(WaitNode& node, WaitState why) noexcept {
  if (node.state_ != WaitState::queued) return false;
  const bool was_head = queue_.front() == &node;
  queue_.remove(node);
  node.state_ = why;
  if (was_head) serve();
  return true;
}

}  // namespace duet::detail
