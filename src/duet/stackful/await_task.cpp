// fiber::await: the task runs under a TaskRunner whose final suspension calls
// wake_after_task. That happens wherever the task finishes: inline on the
// awaiting fiber (then the fiber never parks), on the scheduler's main context
// inside the loop's run_once (an I/O completion resumed the task), or on another
// fiber that resumed it. make_ready works from all three, on the same thread.
#include "duet/stackful/await_task.hpp"

#include <stdexcept>

#include "duet/stackful/scheduler.hpp"

namespace duet::fiber::detail {

FiberRecord& fiber_for_await() {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || scheduler->running() == nullptr) {
    throw std::logic_error("duet: fiber::await called outside any fiber (co_await the task instead)");
  }
  return *scheduler->running();
}

void wake_after_task(void* target) noexcept {
  auto& wake = *static_cast<TaskWake*>(target);
  wake.done_ = true;
  wake.fiber_->scheduler_->make_ready(*wake.fiber_);  // no-op while the fiber runs
}

void park_until_done(TaskWake& wake) {
  Scheduler& scheduler = *wake.fiber_->scheduler_;
  while (!wake.done_) scheduler.park();
}

}  // namespace duet::fiber::detail
