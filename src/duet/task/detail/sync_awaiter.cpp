// SyncAwaiter: suspend on a WaitCore, resume from the loop's delivery.
//
// op_ serves two purposes, one at a time: with a timeout it is a sleep op in
// the loop's timer; without one it is posted (EventLoop::post) when the core
// grants or a stop withdraws the node. Either way the coroutine resumes only
// from op_'s complete_, i.e. from the loop's delivery — so the node's state is
// final by then, and a grant that lands while the timer's own expiry waits for
// delivery is still honoured (the node is no longer queued when on_op runs).
#include "duet/task/detail/sync_awaiter.hpp"

#include <chrono>

#include "duet/io/clock.hpp"

namespace duet::detail {

SyncAwaiter::SyncAwaiter(EventLoop& loop, WaitCore& core, std::size_t count, std::stop_token token) noexcept
    : loop_(&loop), core_(&core), token_(std::move(token)) {
  node_.count_ = count;
  node_.context_ = this;
  node_.wake_ = &SyncAwaiter::on_wake;
  op_.context_ = this;
  op_.complete_ = &SyncAwaiter::on_op;
}

SyncAwaiter::~SyncAwaiter() {
  on_stop_.reset();
  if (node_.state_ == WaitState::queued) {
    core_->withdraw(node_, WaitState::cancelled);
  } else if (node_.state_ == WaitState::granted && !taken_) {
    core_->give_back(node_);  // granted to a frame that is going away: pass it on
  }
  loop_->abandon(op_);
}

bool SyncAwaiter::await_ready() noexcept {
  if (token_.stop_requested()) {
    node_.state_ = WaitState::cancelled;
    return true;
  }
  return core_->arrive(node_);
}

void SyncAwaiter::await_suspend(std::coroutine_handle<> waiter) noexcept {
  waiter_ = waiter;
  if (timeout_.count() > 0) {
    op_.kind_ = OpKind::sleep;
    op_.deadline_ = duet::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
    loop_->submit(op_);
  }
  // The token was not stopped in await_ready and only the loop's thread stops
  // it, so the callback cannot run inside this constructor.
  if (token_.stop_possible()) on_stop_.emplace(token_, Canceller{this});
}

// Granted (from inside the core's set/release) or withdrawn by a stop: wake
// the coroutine through op_. A timer in flight is cancelled instead and its
// completion resumes us; if its expiry is already waiting for delivery the
// cancel does nothing and that delivery resumes us all the same.
void SyncAwaiter::schedule_resume() noexcept {
  if (op_.in_flight()) {
    loop_->cancel(op_);
  } else {
    loop_->post(op_, 0);
  }
}

void SyncAwaiter::on_wake(WaitNode* node) noexcept { static_cast<SyncAwaiter*>(node->context_)->schedule_resume(); }

void SyncAwaiter::Canceller::operator()() const noexcept {
  if (self_->core_->withdraw(self_->node_, WaitState::cancelled)) self_->schedule_resume();
}

// Still queued here means the timer fired before any grant or stop.
void SyncAwaiter::on_op(IoOp* op, int /*res*/) noexcept {
  auto* self = static_cast<SyncAwaiter*>(op->context_);
  if (self->node_.state_ == WaitState::queued) self->core_->withdraw(self->node_, WaitState::timed_out);
  self->on_stop_.reset();
  self->waiter_.resume();
}

}  // namespace duet::detail
