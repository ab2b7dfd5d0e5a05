// UringPoller — how the proactor works.
//
// submit() prepares an SQE whose user_data is the IoOp's address; at the turn
// one io_uring_enter both submits every SQE prepared since the last one and
// waits (with a timeout, via IORING_ENTER_EXT_ARG) for at least one CQE. Then
// the CQ ring is reaped in one batch: each CQE's result is stored in its op, the
// CQ head is advanced once, and only then are the ops' complete_ called.
// Because no callback runs while we walk the CQ ring, a callback may freely
// submit, cancel or abandon.
//
// Early submission (LoopOptions::submit_batch): once that many SQEs wait, they
// go to the kernel right away. A device completes reads in bursts (virtio-blk
// here: one interrupt for many); delivering a burst of 32 resumes 32 owners,
// each preparing its next read, and holding all of them for the turn's enter
// left the disk with nothing to do until the last owner had run and the kernel
// had issued the whole batch under one block plug (O_DIRECT reads at depth 32:
// 0.8x fio's IOPS, fio submitting each read at once). Batches of 8 keep the
// device fed and still spare most system calls.
//
// Setup tries SINGLE_ISSUER | DEFER_TASKRUN (completion work runs only when we
// enter the kernel to ask for events: fewer interrupts, better batching), then
// SINGLE_ISSUER | COOP_TASKRUN, then no flags, falling back on EINVAL.
//
// Per-op timeouts: the op's SQE gets IOSQE_IO_LINK and is followed by an
// IORING_OP_LINK_TIMEOUT; if the timer wins the kernel cancels the op (-ECANCELED),
// which we report as -ETIMEDOUT unless the owner asked for the cancel. Sleeps are
// IORING_OP_TIMEOUT with an absolute CLOCK_MONOTONIC deadline (= steady_clock).
// Cancels are IORING_OP_ASYNC_CANCEL keyed by the op's address (close_fd's by
// the file, for every op on it). Accepts poll an epoll set holding the
// listener instead of the listener, so that no request keeps a listening
// socket open after close or exit (uring_accept.cpp). Link timeouts and
// cancels carry user_data 0 and their CQEs are ignored: the kernel reads their
// timespec at submission, and the op itself outlives its own CQE.
//
// Wake-ups: a read of an eventfd is always in flight; wake() writes the eventfd
// from any thread or a signal handler, which completes that read. Another
// io_uring loop's thread wakes us with IORING_OP_MSG_RING instead (wake_peer,
// where the kernel has it): a CQE lands in our ring and ends the wait. Either
// happens only when the loop announced it may sleep (Poller::may_sleep).
//
// OpKind::recv_pooled's provided-buffer ring and starved queue: uring_recv_pool.cpp.
#include "duet/io/detail/uring_poller.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <system_error>

#include "duet/io/event_loop.hpp"

namespace duet::detail {

namespace {
constexpr std::uint64_t ignored = 0;

__kernel_timespec* timespec_in(IoOp& op, std::chrono::nanoseconds d) noexcept {
  const __kernel_timespec ts{d.count() / 1'000'000'000, d.count() % 1'000'000'000};
  static_assert(sizeof ts == sizeof op.ts_);
  std::memcpy(op.ts_, &ts, sizeof ts);
  return reinterpret_cast<__kernel_timespec*>(op.ts_);
}

int setup_ring(io_uring& ring, unsigned entries, bool basic, unsigned& flags) {
  const unsigned attempts[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                               IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN, 0};
  int r = -EINVAL;
  for (unsigned f : basic ? std::span(attempts).last(1) : std::span(attempts)) {
    io_uring_params params{};
    params.flags = f | IORING_SETUP_CQSIZE;
    params.cq_entries = entries * 4;
    r = io_uring_queue_init_params(entries, &ring, &params);
    if (r != -EINVAL) {
      flags = f;
      break;
    }
  }
  return r;
}
// IORING_OP_MSG_RING (Linux 5.18) and IOSQE_CQE_SKIP_SUCCESS (5.17) for
// wake_peer; the probe asks the running kernel, not the headers.
bool probe_msg_ring(io_uring& ring) noexcept {
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  if (probe == nullptr) return false;
  const bool has = io_uring_opcode_supported(probe, IORING_OP_MSG_RING) != 0;
  io_uring_free_probe(probe);
  return has;
}
}  // namespace

UringPoller::UringPoller(const LoopOptions& options)
    : Poller(options), basic_setup_(options.uring_basic_setup), submit_batch_(options.submit_batch) {
  const int r = setup_ring(ring_, std::max(options.ring_entries, 8u), options.uring_basic_setup, flags_);
  if (r < 0) throw std::system_error(-r, std::generic_category(), "io_uring_queue_init");
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC));
  if (!wake_fd_) {
    const int error = errno;
    io_uring_queue_exit(&ring_);
    throw std::system_error(error, std::generic_category(), "eventfd");
  }
  io_uring_register_ring_fd(&ring_);  // optional speed-up; fine if refused
  msg_ring_ = !basic_setup_ && probe_msg_ring(ring_);
  arm_wake();
}

// Nothing user-owned may be in flight here (EventLoop checks). The wake read is
// ours: io_uring_queue_exit cancels it, and wake_op_ dies with us right after.
UringPoller::~UringPoller() {
  io_uring_queue_exit(&ring_);  // unregisters the buffer ring too
  if (buf_ring_ != nullptr) ::munmap(buf_ring_, buf_ring_bytes(recv_pool_if_made()->count()));
}

// A linked pair must sit in the same submission, so room is made for both
// first. A full SQ goes to the kernel at once, and its completions are reaped
// right after: a burst larger than the rings then never overflows the CQ, and
// a kernel that refuses SQEs (-EBUSY) while CQEs wait in its overflow list
// gets CQ room to flush them into before we retry, instead of a spin. Reaped
// results wait in completed_ for the turn's delivery, as any other.
io_uring_sqe* UringPoller::next_sqe(unsigned needed) noexcept {
  while (io_uring_sq_space_left(&ring_) < needed) {
    io_uring_submit(&ring_);
    reap();
  }
  return io_uring_get_sqe(&ring_);
}

void UringPoller::prepare(io_uring_sqe* sqe, IoOp& op) noexcept {
  const auto offset = static_cast<__u64>(op.offset_);
  const auto len = static_cast<unsigned>(std::min<std::size_t>(op.len_, 1u << 30));
  switch (op.kind_) {
    case OpKind::nop: io_uring_prep_nop(sqe); break;
    case OpKind::read: io_uring_prep_read(sqe, op.fd_, op.buf_, len, offset); break;
    case OpKind::write: io_uring_prep_write(sqe, op.fd_, op.buf_, len, offset); break;
    case OpKind::recv: io_uring_prep_recv(sqe, op.fd_, op.buf_, len, op.flags_); break;
    case OpKind::recv_pooled:
      io_uring_prep_recv(sqe, op.fd_, op.buf_, len, op.flags_);
      if (op.buf_ == nullptr) {  // the kernel picks the buffer when data arrives
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = buffer_group;
      }
      break;
    case OpKind::send: io_uring_prep_send(sqe, op.fd_, op.buf_, len, op.flags_ | MSG_NOSIGNAL); break;
    case OpKind::accept:
      io_uring_prep_accept(sqe, op.fd_, op.addr_, op.addr_ != nullptr ? &op.addrlen_ : nullptr, op.flags_);
      break;
    case OpKind::connect: io_uring_prep_connect(sqe, op.fd_, op.addr_, op.addrlen_); break;
    case OpKind::sendmsg:
      io_uring_prep_sendmsg(sqe, op.fd_, static_cast<const msghdr*>(op.buf_),
                            static_cast<unsigned>(op.flags_ | MSG_NOSIGNAL));
      break;
    case OpKind::recvmsg:
      io_uring_prep_recvmsg(sqe, op.fd_, static_cast<msghdr*>(op.buf_), static_cast<unsigned>(op.flags_));
      break;
    case OpKind::poll: io_uring_prep_poll_add(sqe, op.fd_, static_cast<unsigned>(op.flags_)); break;
    case OpKind::sleep: {
      const auto at = std::chrono::duration_cast<std::chrono::nanoseconds>(op.deadline_.time_since_epoch());
      io_uring_prep_timeout(sqe, timespec_in(op, std::max(at, std::chrono::nanoseconds{0})), 0,
                            IORING_TIMEOUT_ABS);
      break;
    }
    case OpKind::openat:
      io_uring_prep_openat(sqe, op.fd_, static_cast<const char*>(op.buf_), op.flags_, static_cast<mode_t>(op.len_));
      break;
    case OpKind::fsync:
      io_uring_prep_fsync(sqe, op.fd_, (op.flags_ & fsync_datasync) != 0 ? IORING_FSYNC_DATASYNC : 0);
      break;
    case OpKind::statx:  // on the open file itself: the path is "" (a literal: it outlives the SQE)
      io_uring_prep_statx(sqe, op.fd_, "", AT_EMPTY_PATH | op.flags_, static_cast<unsigned>(op.len_),
                          static_cast<struct statx*>(op.buf_));
      break;
    case OpKind::close: io_uring_prep_close(sqe, op.fd_); break;
  }
  io_uring_sqe_set_data(sqe, &op);
}

void UringPoller::submit(IoOp& op) noexcept {
  started(op);
  // The deadline tells a timeout from close_fd's cancel (reap), and a pooled
  // recv that starves is submitted again with what is left of it.
  if (op.timeout_.count() > 0) op.expires_ = Clock::now() + op.timeout_;
  queue_sqes(op);
  // Reaped at once, as next_sqe does, so that early batches never fill the CQ
  // ring (no turn between them may come to empty it); results wait for the turn.
  if (submit_batch_ != 0 && io_uring_sq_ready(&ring_) >= submit_batch_) {
    io_uring_submit(&ring_);
    reap();
  }
}

void UringPoller::queue_sqes(IoOp& op) noexcept {
  if (op.kind_ == OpKind::recv_pooled && !prepare_pooled(op)) return;
  if (op.kind_ == OpKind::accept && !prepare_accept(op)) return;  // accepted at once, or polling (uring_accept.cpp)
  push_sqes(op, -1);
}

// poll_fd >= 0: the op waits as a poll on that fd for POLLIN (an accept's
// epoll set), else as its own kind.
void UringPoller::push_sqes(IoOp& op, int poll_fd) noexcept {
  op.state_ = OpState::in_kernel;
  const bool linked = op.timeout_.count() > 0 && op.kind_ != OpKind::sleep && op.kind_ != OpKind::nop;
  io_uring_sqe* sqe = next_sqe(linked ? 2 : 1);
  if (poll_fd >= 0) {
    io_uring_prep_poll_add(sqe, poll_fd, POLLIN);
    io_uring_sqe_set_data(sqe, &op);
  } else {
    prepare(sqe, op);
  }
  if (!linked) return;
  sqe->flags |= IOSQE_IO_LINK;
  auto left = op.timeout_;
  if (op.kind_ == OpKind::recv_pooled || op.kind_ == OpKind::accept) {  // what is left after starving or a lost race
    left = std::max<Clock::duration>(op.expires_ - Clock::now(), std::chrono::nanoseconds{1});
  }
  io_uring_sqe* timeout = next_sqe(1);
  io_uring_prep_link_timeout(timeout, timespec_in(op, left), 0);
  io_uring_sqe_set_data64(timeout, ignored);
}

void UringPoller::cancel(IoOp& op) noexcept {
  if (op.state_ == OpState::waiting && starved_.remove(op)) return finish_cancelled(op);  // never reached the kernel
  if (op.state_ != OpState::in_kernel || op.cancel_requested_) return;
  op.cancel_requested_ = true;
  io_uring_sqe* sqe = next_sqe(1);
  io_uring_prep_cancel(sqe, &op, 0);
  io_uring_sqe_set_data64(sqe, ignored);
}

int UringPoller::abandon(IoOp& op) noexcept {
  cancel(op);
  while (op.state_ == OpState::in_kernel) {
    io_uring_submit_and_wait(&ring_, 1);
    reap();
  }
  take_finished(op);
  return op.res_;
}

// The kernel matches IORING_ASYNC_CANCEL_FD by file, so the cancel is
// submitted now, while fd still names it (the caller closes fd next): a
// request holds its file, so a socket op would otherwise outlive the close.
// The same submission hands the kernel any op on fd still in the SQ, ahead of
// the cancel. Asking for events in that same enter runs the completions the
// cancel queued (task work: with DEFER_TASKRUN only when we ask), which frees
// the requests and their hold on the file: the close that follows is the
// socket's last (a stream's FIN leaves now, not at the next turn). An op
// running in io-wq may end later. Before Linux 5.19 the kernel refuses the
// cancel (ops stay until their owner cancels them). Listeners: uring_accept.cpp.
void UringPoller::forget_fd(int fd) noexcept {
  if (!accept_proxies_.empty()) forget_accepts(fd);
  if (in_flight() == 0) return;  // nothing to cancel: spare the system call
  io_uring_sqe* sqe = next_sqe(1);
  io_uring_prep_cancel_fd(sqe, fd, IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(sqe, ignored);
  io_uring_submit_and_get_events(&ring_);
  reap();  // a recv_pooled that failed with -ENOBUFS just now starves here
  OpQueue gone = take_starved(fd);  // never to reach the kernel again
  while (IoOp* op = gone.pop_front()) finish_cancelled(*op);
}

// Moves every available CQE's result into its op, then releases the CQ slots.
void UringPoller::reap() noexcept {
  io_uring_cqe* cqe = nullptr;
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    auto* op = static_cast<IoOp*>(io_uring_cqe_get_data(cqe));
    if (op == nullptr) continue;
    int res = cqe->res;
    if (op->kind_ == OpKind::sleep && res == -ETIME) res = 0;
    // -ECANCELED that the owner did not ask for: the link timeout fired, or
    // forget_fd cancelled by file. The kernel starts the timer at issue, after
    // expires_ was set, so a timeout is never seen before expires_.
    if (op->timeout_.count() > 0 && res == -ECANCELED && !op->cancel_requested_ && Clock::now() >= op->expires_) {
      res = -ETIMEDOUT;
    }
    if (op == &wake_op_) {
      op->state_ = OpState::done;
      continue;
    }
    if (op->kind_ == OpKind::recv_pooled && !settle_pooled(*op, *cqe, res)) continue;
    if (op->kind_ == OpKind::accept && !settle_accept(*op, res)) continue;
    finish(*op, res);
  }
  io_uring_cq_advance(&ring_, seen);
  if (!rearm_.empty()) rearm_accepts();  // may reap again: only now, with the CQ ring released
}

std::size_t UringPoller::turn(Clock::time_point deadline) {
  // Any reap may have taken the wake-up read's completion (abandon's, or
  // next_sqe's): re-arm it before this turn can wait, or wake() goes unheard.
  if (wake_op_.state_ == OpState::done) arm_wake();
  if (!starved_.empty()) deadline = std::min(deadline, tend_starved());
  // A wait without limit (the usual one) needs no clock read.
  const auto now = deadline == Clock::time_point::max() ? Clock::time_point::min() : Clock::now();
  if (has_finished() || deadline <= now || spun_for_work(deadline) || !may_sleep()) {
    io_uring_submit_and_get_events(&ring_);
  } else if (deadline == Clock::time_point::max()) {
    io_uring_submit_and_wait(&ring_, 1);
    awake();
  } else {
    io_uring_cqe* cqe = nullptr;
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now);
    __kernel_timespec ts{left.count() / 1'000'000'000, left.count() % 1'000'000'000};
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
    awake();
  }
  reap();
  const std::size_t messages = drain_inbox();
  return messages + deliver();
}

// Awaiting a reply: push what is prepared (our sends must not wait for the
// spin) and look at the completions it brings; with none, spin on the inbox.
// The enter after a successful spin costs a syscall, but no sleep.
bool UringPoller::spun_for_work(Clock::time_point deadline) noexcept {
  if (!spin_worthwhile()) return false;
  io_uring_submit_and_get_events(&ring_);
  return io_uring_cq_ready(&ring_) != 0 || spin_for_reply(deadline);
}

void UringPoller::arm_wake() noexcept {
  wake_op_.state_ = OpState::in_kernel;
  io_uring_sqe* sqe = next_sqe(1);
  io_uring_prep_read(sqe, wake_fd_.get(), &wake_value_, sizeof wake_value_, 0);
  io_uring_sqe_set_data(sqe, &wake_op_);
}

// A CQE posted straight into the peer's ring ends its io_uring_enter wait
// with no eventfd write and no read to re-arm there. Its user_data is 0, which
// the peer's reap ignores; IOSQE_CQE_SKIP_SUCCESS spares us a CQE of our own
// (a failure still posts one here, with user_data 0, also ignored). Submitted
// at once: the peer must not wait for the end of our turn.
bool UringPoller::wake_peer(Poller& target) noexcept {
  const int fd = target.message_ring_fd();
  if (!msg_ring_ || fd < 0) return false;
  io_uring_sqe* sqe = next_sqe(1);
  io_uring_prep_msg_ring(sqe, fd, 0, ignored, 0);
  sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(sqe, ignored);
  io_uring_submit(&ring_);
  return true;
}

void UringPoller::wake() noexcept {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_.get(), &one, sizeof one);
}

}  // namespace duet::detail
