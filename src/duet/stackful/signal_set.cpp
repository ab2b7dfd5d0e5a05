// fiber::SignalSet::wait: SignalFd::step's wait (io/signal_fd.hpp), with each
// poll it asks for run as a blocking FiberOp on the calling fiber.
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
  const auto deadline = timeout.count() > 0 ? duet::now() + timeout : IoOp::Clock::time_point::max();
  int res = 0;
  for (;;) {
    detail::FiberOp op;
    const int r = fd_.step(res, op, deadline);
    if (r != SignalFd::poll_again) return r > 0 ? IoResult<int>(r) : IoResult<int>(error_from_res(r));
    res = detail::run_op(op, token);
  }
}

}  // namespace duet::fiber
