// IoAwaiter: submit on suspend, resume from complete_, abandon on destruction.
#include "duet/task/io_awaiter.hpp"

#include <cerrno>

#include "duet/io/sim_world.hpp"

namespace duet {

IoAwaiter::IoAwaiter(EventLoop& loop, std::stop_token token) noexcept
    : loop_(&loop), token_(std::move(token)) {
  op_.context_ = this;
  op_.complete_ = &IoAwaiter::on_complete;
}

// A frame destroyed while suspended here: the kernel may still write op_ and the
// caller's buffer, so do not return before it has let go of both.
IoAwaiter::~IoAwaiter() { abandon(); }

bool IoAwaiter::abandon() noexcept {
  if (!op_.in_flight()) return false;
  on_stop_.reset();
  res_ = loop_->abandon(op_);
  return true;
}

bool IoAwaiter::await_suspend(std::coroutine_handle<> waiter) noexcept {
  if (failed_early_) return false;
  waiter_ = waiter;
  return launch(true);
}

// EventLoop::start lets epoll finish the op right here when the syscall does
// not block: then we do not suspend at all (no queueing, no loop turn).
bool IoAwaiter::launch(bool first) noexcept {
  // Checked at every start, not just the first: an awaiter that runs several ops
  // (send_all's chunks) is stopped between two of them when the request lands
  // while the previous op's result waits in the loop's delivery queue. The stop
  // callback's cancel() finds nothing in flight then, so this check is the only
  // one that sees it (the fiber voice's run_op checks at every start the same way).
  if (token_.stop_requested() && (first || !sim_reintroduces("send_all_stop"))) {
    res_ = -ECANCELED;
    return false;
  }
  const int r = loop_->start(op_);
  if (r != EventLoop::pending) {
    res_ = r;
    return false;
  }
  // Registered once the op is in flight, so a stop always finds it there. Safe
  // against the callback running inside this constructor: not stopped (checked).
  if (token_.stop_possible() && !on_stop_) on_stop_.emplace(token_, Canceller{this});
  return true;
}

void IoAwaiter::on_complete(IoOp* op, int res) noexcept {
  auto* self = static_cast<IoAwaiter*>(op->context_);
  self->res_ = res;
  self->on_stop_.reset();
  self->waiter_.resume();
}

IoResult<std::size_t> IoAwaiter::size_result() const noexcept {
  if (res_ < 0) return error_from_res(res_);
  if (res_ == 0 && op_.len_ > 0) return io_errc::eof;
  return static_cast<std::size_t>(res_);
}

IoResult<void> IoAwaiter::void_result() const noexcept {
  if (res_ < 0) return error_from_res(res_);
  return {};
}

}  // namespace duet
