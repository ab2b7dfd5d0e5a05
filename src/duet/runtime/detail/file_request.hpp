// duet::detail::FileRequest — one file call for either voice: an io_uring op
// on io_uring, a blocking-pool job on epoll. The core of duet::File and
// duet::fiber::File (the voices add only how to suspend and resume).
//
// Contract
// - Describe the call in op() with io/file_ops.hpp's describe_*, then
//   start(loop, done, owner) on loop's thread. done(request, res) runs exactly
//   once, on loop's thread, from one of its turns (never inside start), with the
//   syscall-style result (>= 0, or -errno). owner() is the owner's pointer.
// - Where the call runs is decided here and nowhere else: on an io_uring loop
//   the op goes to the ring (IORING_OP_OPENAT, READ, WRITE, FSYNC, STATX,
//   CLOSE); on an epoll loop, where a regular file is always "ready" and the
//   syscall would block the loop, file_syscall runs on a BlockingPool thread
//   (default_blocking_pool() unless a pool is given) and the result comes back
//   to the loop as a remote op (runtime/detail/home_reply.hpp). A full pool
//   queue makes the call wait for room; a pool shut down gives -EAGAIN.
// - cancel(), loop thread: io_uring cancels the op in the kernel (a regular
//   file's read that already runs may finish anyway); the pool removes a job
//   not yet started, and interrupts one that runs (the job is may_block_, see
//   runtime/blocking_pool.hpp: a read of a FIFO with no writer, an open of
//   one, a terminal's read fail with EINTR, reported -ECANCELED; a regular
//   file's syscall is not interruptible and finishes). Either way done runs
//   with -ECANCELED or the real result. Such calls do not hold the pool's
//   threads either: the pool grows past them, so one stuck call never stalls
//   the process's other file calls.
// - abandon(), loop thread, for an owner going away with the call in flight:
//   returns only once nothing will touch the request or its buffer again, and
//   returns the final result; done is NOT called.
// - The request, its path and buffer stay alive and unmoved while in flight.
//
//   FileRequest req;  describe_read(req.op(), fd, buf, n, 0);
//   req.start(loop, &on_done, this);        // on_done(&req, res) later, on loop
#pragma once

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/runtime/detail/home_reply.hpp"

namespace duet::detail {

class FileRequest final : private PoolJob {
 public:
  using Done = void (*)(FileRequest* request, int res) noexcept;

  FileRequest() noexcept;
  FileRequest(const FileRequest&) = delete;
  FileRequest& operator=(const FileRequest&) = delete;
  FileRequest(FileRequest&&) = delete;
  FileRequest& operator=(FileRequest&&) = delete;
  ~FileRequest() { abandon(); }

  [[nodiscard]] IoOp& op() noexcept { return op_; }
  [[nodiscard]] void* owner() const noexcept { return owner_; }
  [[nodiscard]] bool in_flight() const noexcept { return active_; }
  // The pool for the epoll path (default_blocking_pool() when never set).
  void set_pool(BlockingPool* pool) noexcept { pool_ = pool; }

  void start(EventLoop& loop, Done done, void* owner) noexcept;
  void cancel() noexcept;
  int abandon() noexcept;

 private:
  static void on_op(IoOp* op, int res) noexcept;
  static void run(PoolJob* job) noexcept;
  static void answered(PoolJob* job, int res) noexcept;
  [[nodiscard]] bool pooled() const noexcept { return loop_->backend() == Backend::epoll; }  // sim: its own files

  IoOp op_;
  HomeReply reply_;
  EventLoop* loop_ = nullptr;
  BlockingPool* pool_ = nullptr;
  Done on_done_ = nullptr;
  void* owner_ = nullptr;
  int pool_res_ = 0;   // the syscall's result, written on the pool thread before the reply
  int final_res_ = 0;  // the reply's result (pool_res_, or -ECANCELED / -EAGAIN)
  bool active_ = false;
};

}  // namespace duet::detail
