// SignalSet's awaiter: SignalFd::step's wait (io/signal_fd.hpp), with each
// poll it asks for run as this awaiter's op; a signal already pending is taken
// without suspending.
#include "duet/task/signal_set.hpp"

#include <cerrno>

#include "duet/io/clock.hpp"

namespace duet {

namespace detail {

SignalAwaiter::SignalAwaiter(const SignalFd& fd, std::stop_token token) noexcept
    : IoAwaiter(fd.loop(), std::move(token)), fd_(&fd) {
  op_.complete_ = &SignalAwaiter::on_ready;
}

bool SignalAwaiter::await_suspend(std::coroutine_handle<> waiter) noexcept {
  // A token already stopped fails without taking a signal (it stays queued).
  if (stop_token().stop_requested()) {
    set_result(-ECANCELED);
    return false;
  }
  // with_timeout has set op_.timeout_ by now: it bounds the whole wait.
  deadline_ = op_.timeout_.count() > 0 ? duet::now() + op_.timeout_ : IoOp::Clock::time_point::max();
  const int r = fd_->step(0, op_, deadline_);
  if (r != SignalFd::poll_again) {
    set_result(r);
    return false;
  }
  if (IoAwaiter::await_suspend(waiter)) return true;
  return read_or_wait(result());
}

// After a poll that ended with res: true if a new poll is in flight, false
// when result() holds the outcome (a signal number, or -errno).
bool SignalAwaiter::read_or_wait(int res) noexcept {
  for (;;) {
    const int r = fd_->step(res, op_, deadline_);
    if (r != SignalFd::poll_again) {
      set_result(r);
      return false;
    }
    if (launch()) return true;
    res = result();
  }
}

void SignalAwaiter::on_ready(IoOp* op, int res) noexcept {
  auto* self = static_cast<SignalAwaiter*>(static_cast<IoAwaiter*>(op->context_));
  if (!self->read_or_wait(res)) on_complete(op, self->result());
}

IoResult<int> SignalAwaiter::await_resume() const noexcept {
  if (result() < 0) return error_from_res(result());
  return result();
}

}  // namespace detail

Task<IoResult<int>> SignalSet::wait_task(std::stop_token token) { co_return co_await wait(std::move(token)); }

}  // namespace duet
