// fiber::SignalSet::wait: take a pending signal without parking; else park on
// a poll op for the signalfd and read when it is ready. A poll that finds
// nothing to read (another reader of the same signal took it) waits again,
// within what is left of the timeout. The semantics are SignalFd's.
#include "duet/stackful/signal_set.hpp"

#include <cerrno>
#include <stdexcept>

#include "duet/io/clock.hpp"
#include "duet/stackful/detail/fiber_op.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber {

namespace {

EventLoop& current_loop() {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error("duet: fiber SignalSet on a thread without a Scheduler");
  return scheduler->loop();
}

}  // namespace

SignalSet::SignalSet(std::initializer_list<int> signals) : fd_(current_loop(), signals) {}

IoResult<int> SignalSet::wait(Timeout timeout, std::stop_token token) const {
  // A token already stopped fails without taking a signal (it stays queued).
  if (token.stop_requested()) return error_from_res(-ECANCELED);
  const auto deadline = duet::now() + timeout;
  for (;;) {
    const int signo = fd_.try_read();
    if (signo != -EAGAIN) return signo > 0 ? IoResult<int>(signo) : IoResult<int>(error_from_res(signo));
    detail::FiberOp op;
    fd_.prepare_poll(op);
    if (timeout.count() > 0) {
      const auto left = deadline - duet::now();
      if (left <= std::chrono::steady_clock::duration::zero()) return error_from_res(-ETIMEDOUT);
      op.timeout_ = std::chrono::duration_cast<std::chrono::nanoseconds>(left);
    }
    const int res = detail::run_op(op, token);
    if (res < 0) return error_from_res(res);
  }
}

}  // namespace duet::fiber
