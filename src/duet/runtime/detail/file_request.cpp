// FileRequest: the one place a file call picks its path. On io_uring the ring
// does the work asynchronously (buffered reads complete inline when the page
// cache has the data; misses go to the kernel's io-wq workers). On epoll the
// call is a PoolJob (may_block_: a stop interrupts it even while it runs):
// run() does the syscall on a pool thread, then the pool
// calls answered(), whose HomeReply::send is the pool's last touch of the
// request; the loop's next turn fulfils the reply op and on_op finishes.
#include "duet/runtime/detail/file_request.hpp"

#include <cerrno>

#include "duet/io/file_ops.hpp"

namespace duet::detail {

FileRequest::FileRequest() noexcept {
  PoolJob::run_ = &FileRequest::run;
  PoolJob::done_ = &FileRequest::answered;
  op_.complete_ = &FileRequest::on_op;
  op_.context_ = this;
}

void FileRequest::start(EventLoop& loop, Done done, void* owner) noexcept {
  loop_ = &loop;
  on_done_ = done;
  owner_ = owner;
  active_ = true;
  if (!pooled()) {
    op_.complete_ = &FileRequest::on_op;
    op_.context_ = this;
    loop.submit(op_);
    return;
  }
  reply_.arm(loop, &FileRequest::on_op, this);
  if (pool_ == nullptr) pool_ = &default_blocking_pool();
  // Any file call but close may wait without bound (a FIFO, a terminal, a
  // hung NFS server): the pool lets a stop interrupt it and does not let it
  // hold one of its threads. A close is never interrupted (EINTR from close
  // leaves the fd's state unknown).
  PoolJob::may_block_ = op_.kind_ != OpKind::close;
  bool queued = false;
  try {
    queued = pool_->submit(*this, true);
  } catch (...) {  // the pool could not take it (no memory): answer as refused
  }
  if (!queued) answered(this, -EAGAIN);
}

// Both paths end here, on the loop's thread: the ring's CQE, or the reply op.
void FileRequest::on_op(IoOp* op, int res) noexcept {
  auto* self = static_cast<FileRequest*>(op->context_);
  self->active_ = false;
  self->on_done_(self, res);
}

// An EINTR is the pool's interrupt when a stop came (the call ends
// -ECANCELED, as io_uring's does), else some other signal's: call again —
// except close, whose fd is gone even then (a retry could close a reused one).
void FileRequest::run(PoolJob* job) noexcept {
  auto* self = static_cast<FileRequest*>(job);
  int res = file_syscall(self->op_);
  while (res == -EINTR && self->may_block_ && !self->stop_requested()) res = file_syscall(self->op_);
  self->pool_res_ = res == -EINTR ? -ECANCELED : res;
}

// Pool thread after run() (res 0), or the cancelling thread (res -ECANCELED),
// or start() for a refused job (-EAGAIN).
void FileRequest::answered(PoolJob* job, int res) noexcept {
  auto* self = static_cast<FileRequest*>(job);
  self->final_res_ = res == 0 ? self->pool_res_ : res;
  self->reply_.send(self->final_res_);
}

void FileRequest::cancel() noexcept {
  if (!active_) return;
  if (pooled()) {
    pool_->cancel(*this);
  } else {
    loop_->cancel(op_);
  }
}

int FileRequest::abandon() noexcept {
  if (!active_) return 0;
  active_ = false;
  if (!pooled()) return loop_->abandon(op_);
  pool_->cancel(*this);  // a job not started never will; a running one finishes
  reply_.abandon();      // runs the loop's inbox until the answer is in
  return final_res_;
}

}  // namespace duet::detail
