// run_on_fiber's shared slot. Its nop op is the way back from a fiber to the
// stackless side: a fiber must not resume the task itself, or the task's code
// would go on running on the fiber's stack (hooked, and past the fiber's end).
// The nop completes in the loop's next turn, on the scheduler's main context.
#include "duet/stackful/run_on_fiber.hpp"

namespace duet::detail {

FiberCallLink::FiberCallLink(fiber::Scheduler& scheduler) noexcept
    : scheduler_(&scheduler), loop_(&scheduler.loop()) {
  kind_ = OpKind::nop;
  complete_ = &FiberCallLink::on_done;
}

std::exception_ptr FiberCallLink::fiber_finished(std::exception_ptr error) noexcept {
  if (awaiter_gone_) {
    drop();
    return error;  // nobody takes the result: the fiber rethrows it
  }
  loop_->submit(*this);
  drop();  // the awaiter's reference keeps the slot until it has read it
  return nullptr;
}

void FiberCallLink::add_fiber() noexcept {
  ++refs_;
  scheduler_->hold();
  holding_ = true;
}

void FiberCallLink::release_hold() noexcept {
  if (std::exchange(holding_, false)) scheduler_->release_hold();
}

void FiberCallLink::awaiter_gone() noexcept {
  awaiter_gone_ = true;
  release_hold();  // the detached fiber, if still running, keeps run() going by itself
  // A fiber still running gets the stop request (its stop callbacks only
  // cancel ops: nothing resumes from here). Harmless when f has ended or took
  // no token.
  if (refs_ > 1) stop_.request_stop();
  if (in_flight()) loop_->abandon(*this);  // destroyed between the fiber's end and the nop
  drop();
}

void FiberCallLink::on_done(IoOp* op, int /*res*/) noexcept {
  // The awaiter still holds its reference: the slot outlives this resume's
  // return only if the awaiter does, so nothing here touches it afterwards.
  auto* self = static_cast<FiberCallLink*>(op);
  self->release_hold();
  self->waiter_.resume();
}

void FiberCallLink::drop() noexcept {
  if (--refs_ == 0) delete this;
}

}  // namespace duet::detail
