// wait_on: park a fiber on a WaitCore. Every event that can end the wait (a
// grant, a stop, the timer) makes the fiber ready; the fiber re-checks the
// node's state each time it runs, and before returning it waits until its
// timer op has left the loop (the op is on this stack).
#include "duet/stackful/detail/sync_wait.hpp"

#include <optional>
#include <stdexcept>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber::detail {

namespace {

struct FiberWaiter {
  // A constructor, not aggregate initialisation: g++ zero-fills a braced
  // aggregate in full (rep stos over ~190 bytes) before the members' own
  // initialisers, on every wait.
  FiberWaiter(duet::detail::WaitCore& core, Scheduler& scheduler) noexcept
      : core_(&core), scheduler_(&scheduler), fiber_(scheduler.running()) {}

  duet::detail::WaitCore* core_;
  Scheduler* scheduler_;
  FiberRecord* fiber_;
  WaitNode node_;
  // Made only for a wait with a deadline: an IoOp is ~130 bytes of member
  // initialisers, which a wait granted at once (most channel sends) would pay for nothing.
  std::optional<IoOp> timer_;

  void ready() noexcept { scheduler_->make_ready(*fiber_); }
};

void on_wake(WaitNode* node) noexcept { static_cast<FiberWaiter*>(node->context_)->ready(); }

// The deadline passed, or the cancel below stopped the timer: the fiber runs
// again either way; a node still queued is withdrawn as timed out.
void on_timer(IoOp* op, int /*res*/) noexcept {
  auto* self = static_cast<FiberWaiter*>(op->context_);
  if (self->node_.state_ == WaitState::queued) self->core_->withdraw(self->node_, WaitState::timed_out);
  self->ready();
}

struct Canceller {
  FiberWaiter* self_;
  void operator()() const noexcept {
    if (self_->core_->withdraw(self_->node_, WaitState::cancelled)) self_->ready();
  }
};

}  // namespace

WaitState wait_on(duet::detail::WaitCore& core, std::size_t count, std::chrono::steady_clock::time_point deadline,
                  const std::stop_token& token, void* payload) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || scheduler->running() == nullptr) {
    throw std::logic_error("duet: a fiber wait was made outside any fiber");
  }
  if (token.stop_requested()) return WaitState::cancelled;
  FiberWaiter waiter(core, *scheduler);
  waiter.node_.count_ = count;
  waiter.node_.payload_ = payload;
  waiter.node_.context_ = &waiter;
  waiter.node_.wake_ = &on_wake;
  if (core.arrive(waiter.node_)) return WaitState::granted;

  EventLoop& loop = scheduler->loop();
  if (deadline != EventLoop::forever) {
    IoOp& timer = waiter.timer_.emplace();
    timer.kind_ = OpKind::sleep;
    timer.deadline_ = deadline;
    timer.context_ = &waiter;
    timer.complete_ = &on_timer;
    loop.submit(timer);
  }
  {
    std::optional<std::stop_callback<Canceller>> on_stop;
    if (token.stop_possible()) on_stop.emplace(token, Canceller{&waiter});
    while (waiter.node_.state_ == WaitState::queued) scheduler->park();
  }
  // Granted or cancelled with the timer still armed: stop it and wait for its
  // completion (it readies us), so the loop lets go of timer_ before we return.
  if (waiter.timer_ && waiter.timer_->in_flight()) {
    loop.cancel(*waiter.timer_);
    while (waiter.timer_->in_flight()) scheduler->park();
  }
  return waiter.node_.state_;
}

}  // namespace duet::fiber::detail
