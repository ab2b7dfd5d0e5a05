// Blocking a fiber on one IoOp. The op's complete_ runs on the loop's thread
// inside EventLoop::run_once (called by the scheduler's main context between
// turns), stores the result and moves the fiber to the ready queue; the fiber
// picks the result up when it next runs.
#include "duet/stackful/detail/fiber_op.hpp"

#include <cerrno>
#include <optional>
#include <stdexcept>

#include "duet/stackful/scheduler.hpp"

namespace duet::fiber::detail {

namespace {

void on_complete(IoOp* op, int res) noexcept {
  auto* self = static_cast<FiberOp*>(op);
  self->result_ = res;
  self->done_ = true;
  Scheduler& scheduler = *self->fiber_->scheduler_;
  scheduler.make_ready(*self->fiber_);
}

struct Canceller {
  EventLoop* loop_;
  IoOp* op_;
  void operator()() const noexcept { loop_->cancel(*op_); }
};

}  // namespace

int run_op(FiberOp& op, const std::stop_token& token) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || scheduler->running() == nullptr) {
    throw std::logic_error("duet: a fiber I/O call was made outside any fiber");
  }
  if (token.stop_requested()) return -ECANCELED;
  op.fiber_ = scheduler->running();
  op.complete_ = &on_complete;
  op.done_ = false;
  EventLoop& loop = scheduler->loop();
  loop.submit(op);
  std::optional<std::stop_callback<Canceller>> on_stop;
  if (token.stop_possible()) on_stop.emplace(token, Canceller{&loop, &op});
  while (!op.done_) scheduler->park();
  return op.result_;
}

}  // namespace duet::fiber::detail
