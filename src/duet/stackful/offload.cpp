// fiber::offload's parking: the job's answer is a remote op on the fiber's
// loop (task/detail/offload_job.hpp), whose completion readies the fiber.
#include "duet/stackful/offload.hpp"

#include <stdexcept>

#include "duet/stackful/detail/fiber_record.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber::detail {

EventLoop& fiber_home(FiberWake& wake) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || scheduler->running() == nullptr) {
    throw std::logic_error("duet: fiber::offload called outside a fiber");
  }
  wake.fiber_ = scheduler->running();
  return scheduler->loop();
}

void fiber_wake(IoOp* op, int res) noexcept {
  auto& wake = *static_cast<FiberWake*>(op->context_);
  wake.res_ = res;
  wake.done_ = true;
  auto* fiber = static_cast<FiberRecord*>(wake.fiber_);
  fiber->scheduler_->make_ready(*fiber);
}

void park_until_done(FiberWake& wake) {
  Scheduler& scheduler = *Scheduler::current();
  while (!wake.done_) scheduler.park();
}

}  // namespace duet::fiber::detail
