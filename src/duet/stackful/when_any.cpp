// fiber::when_any's shared state: the caller parks until the first child ends.
// Everything runs on the scheduler's thread, so no atomics: a child's end and
// the caller's park never interleave (a fiber switches only when it blocks).
#include "duet/stackful/when_any.hpp"

namespace duet::fiber::detail {

WhenAnyState::WhenAnyState(std::stop_token outer) : scheduler_(Scheduler::current()) {
  if (scheduler_ == nullptr) throw std::logic_error("duet: fiber::when_any on a thread without a Scheduler");
  // Runs Link at once if outer is already stopped: the children then start stopped.
  if (outer.stop_possible()) link_.emplace(std::move(outer), Link{&stop_});
}

void WhenAnyState::finished(std::size_t index) noexcept {
  if (winner_ != no_winner) return;
  winner_ = index;
  // Cancels the losers' pending ops: their fibers become READY (none runs here).
  stop_.request_stop();
  if (waiter_ != nullptr) scheduler_->make_ready(*waiter_);
}

std::size_t WhenAnyState::wait_for_winner() {
  if (scheduler_->running() == nullptr) {
    scheduler_->run_until([this] { return winner_ != no_winner; });
    return winner_;
  }
  while (winner_ == no_winner) {
    waiter_ = scheduler_->running();
    scheduler_->park();
    waiter_ = nullptr;
  }
  return winner_;
}

}  // namespace duet::fiber::detail
