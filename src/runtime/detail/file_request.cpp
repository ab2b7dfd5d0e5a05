// FileRequest: the one place a file call picks its path. On io_uring the ring
// does the work asynchronously (buffered reads complete inline when the page
// cache has the data; misses go to the kernel's io-wq workers). On epoll the
// call is a PoolJob: run() does the syscall on a pool thread, then the pool
// calls answered(), whose HomeReply::send is the pool's last touch of the
// request; the loop's next turn fulfils the reply op and on_op finishes.
#include "runtime/detail/file_request.hpp"

#include <cerrno>

#include "io/file_ops.hpp"

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

void FileRequest::run(PoolJob* job) noexcept {
  auto* self = static_cast<FileRequest*>(job);
  self->pool_res_ = file_syscall(self->op_);
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
