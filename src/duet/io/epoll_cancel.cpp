// EpollPoller — how an op leaves before its syscall succeeds (see
// epoll_poller.cpp for the reactor): its timer expires, its owner cancels or
// abandons it, or its fd is closed through the loop. A waiting op sits in
// exactly one queue (its fd's readers, writers or pollers, or starved_) and
// maybe in the timer heap; leaving takes it out of both, then finish()
// queues its result for the turn's delivery (abandon withdraws it at once).
#include <sys/epoll.h>

#include <cerrno>
#include <cstddef>

#include "duet/io/detail/epoll_poller.hpp"

namespace duet::detail {

void EpollPoller::unpark(IoOp& op) noexcept {
  timers_.remove(op);
  leave_queue(op);
}

// Out of whichever queue holds a waiting op: its fd's, or the starved one.
void EpollPoller::leave_queue(IoOp& op) noexcept {
  if (op.kind_ == OpKind::sleep) return;
  if (op.kind_ == OpKind::recv_pooled && starved_.remove(op)) return;
  queue_for(op).remove(op);
}

void EpollPoller::expire_timers(Clock::time_point now) noexcept {
  while (!timers_.empty() && timers_.top()->expires_ <= now) {
    IoOp* op = timers_.pop();
    leave_queue(*op);
    finish(*op, op->kind_ == OpKind::sleep ? 0 : -ETIMEDOUT);
  }
}

void EpollPoller::cancel(IoOp& op) noexcept {
  if (op.state_ != OpState::waiting) return;  // finished already, or never started
  unpark(op);
  finish_cancelled(op);
}

int EpollPoller::abandon(IoOp& op) noexcept {
  if (op.state_ == OpState::waiting) {
    unpark(op);
    finish(op, -ECANCELED);
  }
  take_finished(op);
  return op.res_;
}

// An fd that is closed leaves epoll's interest list by itself (once its last
// reference goes), so an op parked on it would never hear an edge again, and a
// starved recv_pooled would later recv on a closed or reused fd. Both finish
// now with -ECANCELED, as io_uring's ops on fd do.
void EpollPoller::forget_fd(int fd) noexcept {
  OpQueue gone = take_starved(fd);
  if (fd >= 0 && static_cast<std::size_t>(fd) < fds_.size()) {
    FdWaiters& w = fds_[static_cast<std::size_t>(fd)];
    for (OpQueue* q : {&w.readers, &w.writers, &w.pollers}) {
      while (IoOp* op = q->pop_front()) gone.push_back(*op);
    }
    if (w.registered) ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr);
    w = FdWaiters{};
  }
  while (IoOp* op = gone.pop_front()) {
    timers_.remove(*op);
    finish_cancelled(*op);
  }
}

}  // namespace duet::detail
