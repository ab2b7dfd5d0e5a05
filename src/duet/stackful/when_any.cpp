// fiber::when_any's shared state: the caller parks until the first child ends
// (when_first_ok: until one succeeds, or all have ended).
// Everything runs on the scheduler's thread, so no atomics: a child's end and
// the caller's park never interleave (a fiber switches only when it blocks).
#include "duet/stackful/when_any.hpp"

#include <utility>

namespace duet::fiber::detail {

WhenAnyState::WhenAnyState(std::stop_token outer, Win win) : scheduler_(Scheduler::current()), win_(win) {
  if (scheduler_ == nullptr) throw std::logic_error("duet: fiber::when_any on a thread without a Scheduler");
  // Runs Link at once if outer is already stopped: the children then start stopped.
  if (outer.stop_possible()) link_.emplace(std::move(outer), Link{&stop_});
}

void WhenAnyState::claim(std::size_t index) noexcept {
  if (winner_ != no_winner) return;
  winner_ = index;
  // Cancels the losers' pending ops: their fibers become READY (none runs here).
  stop_.request_stop();
  wake_waiter();
}

void WhenAnyState::finished(std::size_t index) noexcept {
  ++ended_;
  if (win_ == Win::finishing) claim(index);
  if (decided()) wake_waiter();
}

// Once only per park: claim() and the last finished() may both come before the caller runs.
void WhenAnyState::wake_waiter() noexcept {
  if (waiter_ == nullptr) return;
  scheduler_->make_ready(*std::exchange(waiter_, nullptr));
}

std::size_t WhenAnyState::wait_for_winner(std::size_t children) {
  children_ = children;
  if (scheduler_->running() == nullptr) {
    scheduler_->run_until([this] { return decided(); });
    return winner_;
  }
  while (!decided()) {
    waiter_ = scheduler_->running();
    scheduler_->park();
  }
  return winner_;
}

}  // namespace duet::fiber::detail
