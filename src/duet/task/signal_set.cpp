// SignalSet's awaiter: a pending signal is taken without suspending; else a
// poll op waits for the signalfd, and the read happens on its completion. A
// poll that finds nothing to read (another reader of the same signal took it)
// waits again, within what is left of the timeout.
#include "duet/task/signal_set.hpp"

#include <cerrno>

#include "duet/io/clock.hpp"

namespace duet {

namespace detail {

SignalAwaiter::SignalAwaiter(const SignalFd& fd, std::stop_token token) noexcept
    : IoAwaiter(fd.loop(), std::move(token)), fd_(&fd) {
  fd.prepare_poll(op_);
  op_.complete_ = &SignalAwaiter::on_ready;
}

bool SignalAwaiter::await_suspend(std::coroutine_handle<> waiter) noexcept {
  // A token already stopped fails without taking a signal (it stays queued).
  if (stop_token().stop_requested()) {
    set_result(-ECANCELED);
    return false;
  }
  const int signo = fd_->try_read();
  if (signo != -EAGAIN) {
    set_result(signo);
    return false;
  }
  if (op_.timeout_.count() > 0) deadline_ = duet::now() + op_.timeout_;
  if (IoAwaiter::await_suspend(waiter)) return true;
  return read_or_wait(result());
}

// After a poll that ended with res: true if a new poll is in flight, false
// when result() holds the outcome (a signal number, or -errno).
bool SignalAwaiter::read_or_wait(int res) noexcept {
  for (;;) {
    if (res < 0) break;  // cancelled, timed out, or the poll failed
    res = fd_->try_read();
    if (res != -EAGAIN) break;
    if (op_.timeout_.count() > 0) {
      const auto left = deadline_ - duet::now();
      if (left <= std::chrono::steady_clock::duration::zero()) {
        res = -ETIMEDOUT;
        break;
      }
      op_.timeout_ = std::chrono::duration_cast<std::chrono::nanoseconds>(left);
    }
    if (launch()) return true;
    res = result();
  }
  set_result(res);
  return false;
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
