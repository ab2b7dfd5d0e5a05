// EpollPoller's half of OpKind::recv_pooled (see epoll_poller.cpp for the
// reactor itself): a buffer from the pool is taken right before the recv and
// kept only when bytes arrived; with none free the op "starves" — it waits,
// with no syscall and its timeout still running, in the starved queue that
// every turn feeds first, once owners have given buffers back.
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>

#include "duet/io/detail/epoll_poller.hpp"

namespace duet::detail {

// A buffer is taken right before the syscall and kept only if bytes arrived,
// so a recv that waits holds none. No free buffer: -ENOBUFS (the op starves).
int EpollPoller::recv_pooled(IoOp& op) noexcept {
  RecvBufferPool* pool = recv_pool();
  if (pool == nullptr) return -ENOMEM;
  const int id = pool->take();
  if (id < 0) return -ENOBUFS;
  const auto bid = static_cast<std::uint16_t>(id);
  op.buf_ = pool->data(bid);
  op.len_ = pool->buffer_size();
  const ssize_t n = ::recv(op.fd_, op.buf_, op.len_, op.flags_);
  const int r = n >= 0 ? static_cast<int>(n) : -errno;  // n <= the buffer size: fits an int
  if (r > 0) {
    op.buffer_id_ = bid;
  } else {
    pool->put(bid);
  }
  return r;
}

void EpollPoller::release_recv_buffer(std::uint16_t id) noexcept {
  if (RecvBufferPool* pool = recv_pool_if_made()) pool->put(id);
}

// Waits, without a syscall, for a buffer to come back; its timeout still runs.
void EpollPoller::starve(IoOp& op) noexcept {
  if (op.timeout_.count() > 0 && !TimerHeap::contains(op)) {
    op.expires_ = Clock::now() + op.timeout_;
    try {
      timers_.push(op);
    } catch (...) {
      return finish(op, -ENOMEM);
    }
  }
  op.state_ = OpState::waiting;
  starved_.push_back(op);
}

// Turn start: the previous turn's owners have returned their buffers. A
// starved op is not parked on its fd, so it tries its syscall afresh; its
// timeout keeps running from submission wherever it waits next.
void EpollPoller::feed_starved() noexcept {
  RecvBufferPool* pool = recv_pool_if_made();
  while (pool != nullptr && pool->free_count() > 0 && !starved_.empty()) {
    IoOp& op = *starved_.pop_front();
    const int r = try_syscall(op);
    if (r == -EAGAIN) {
      park(op);  // with the timer it has had since it starved
    } else if (r == -ENOBUFS) {
      starved_.push_back(op);
      return;
    } else {
      timers_.remove(op);
      finish(op, r);
    }
  }
}

}  // namespace duet::detail
