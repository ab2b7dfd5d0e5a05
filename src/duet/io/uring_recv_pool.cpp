// UringPoller's half of OpKind::recv_pooled (see uring_poller.cpp for the
// proactor itself). Provided buffers (Linux 5.19): the pool's buffers sit in a ring
// the kernel takes from when data arrives, and a CQE names the buffer it used.
// A recv that finds the ring empty completes with -ENOBUFS: it starves until
// the next turn, when owners have given buffers back (they do so while the
// turn delivers), and is then submitted again with what is left of its timeout.
// Without provided buffers the pool is used as epoll uses it: a buffer is
// taken at submission and held while the recv waits (correct, just not lean).
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "duet/io/detail/uring_poller.hpp"

namespace duet::detail {

bool UringPoller::prepare_pooled(IoOp& op) noexcept {
  if (ring_kind_ == BufferRing::unset && !setup_buffer_ring()) {
    finish(op, -ENOMEM);
    return false;
  }
  RecvBufferPool& pool = *recv_pool_if_made();
  op.len_ = pool.buffer_size();
  op.buf_ = nullptr;
  if (ring_kind_ == BufferRing::emulated) {
    const int id = pool.take();
    if (id < 0) {
      op.state_ = OpState::waiting;
      starved_.push_back(op);
      return false;
    }
    op.buffer_id_ = static_cast<std::uint16_t>(id);
    op.buf_ = pool.data(op.buffer_id_);
  }
  return true;
}

bool UringPoller::setup_buffer_ring() noexcept {
  RecvBufferPool* pool = recv_pool();
  if (pool == nullptr) return false;
  ring_kind_ = BufferRing::emulated;
  if (basic_setup_) return true;  // as on a kernel without provided buffers
  const std::size_t bytes = buf_ring_bytes(pool->count());
  void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return true;
  auto* br = static_cast<io_uring_buf_ring*>(mem);
  io_uring_buf_ring_init(br);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<std::uintptr_t>(mem);
  reg.ring_entries = static_cast<unsigned>(pool->count());
  reg.bgid = buffer_group;
  if (io_uring_register_buf_ring(&ring_, &reg, 0) != 0) {
    ::munmap(mem, bytes);
    return true;
  }
  buf_ring_ = br;
  const int mask = io_uring_buf_ring_mask(reg.ring_entries);
  for (unsigned i = 0; i < reg.ring_entries; ++i) {
    io_uring_buf_ring_add(br, pool->data(static_cast<std::uint16_t>(i)), static_cast<unsigned>(pool->buffer_size()),
                          static_cast<unsigned short>(i), mask, static_cast<int>(i));
  }
  io_uring_buf_ring_advance(br, static_cast<int>(reg.ring_entries));
  while (pool->take() >= 0) {  // the ring is the free list now
  }
  in_ring_ = pool->count();
  ring_kind_ = BufferRing::provided;
  return true;
}

// Turns a recv_pooled CQE into the op's result. False: the op starved (no
// buffer was free) and waits in starved_ instead of finishing.
//
// An -ENOBUFS on an op whose owner asked for a cancel finishes it with
// -ECANCELED instead. The kernel fails a buffer-select recv at issue when the
// ring is empty, so a cancel submitted with it (or after it) finds nothing to
// cancel: requeued as starved, the op would outlive the cancel (a second
// cancel() returns early on cancel_requested_) and abandon() would return
// while the op is still linked in starved_ (use-after-free once it dies).
bool UringPoller::settle_pooled(IoOp& op, const io_uring_cqe& cqe, int& res) noexcept {
  RecvBufferPool& pool = *recv_pool_if_made();
  if (ring_kind_ == BufferRing::provided) {
    if ((cqe.flags & IORING_CQE_F_BUFFER) != 0) {
      const auto id = static_cast<std::uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
      --in_ring_;
      if (res > 0) {
        op.buffer_id_ = id;
        op.buf_ = pool.data(id);
      } else {
        release_recv_buffer(id);
      }
    }
    if (res == -ENOBUFS && op.cancel_requested_) {
      res = -ECANCELED;
    } else if (res == -ENOBUFS) {
      op.state_ = OpState::waiting;
      starved_.push_back(op);
      return false;
    }
  } else if (res <= 0) {
    pool.put(op.buffer_id_);
  }
  return true;
}

void UringPoller::release_recv_buffer(std::uint16_t id) noexcept {
  RecvBufferPool* pool = recv_pool_if_made();
  if (pool == nullptr) return;
  if (ring_kind_ != BufferRing::provided) return pool->put(id);
  io_uring_buf_ring_add(buf_ring_, pool->data(id), static_cast<unsigned>(pool->buffer_size()), id,
                        io_uring_buf_ring_mask(static_cast<unsigned>(pool->count())), 0);
  io_uring_buf_ring_advance(buf_ring_, 1);
  ++in_ring_;
}

// Turn start: starved recvs whose timeout ran out fail with -ETIMEDOUT; as many
// of the rest go back to the kernel as there are free buffers, so an empty
// pool waits instead of spinning through -ENOBUFS. Returns when the turn must
// wake up at the latest for the next starved timeout.
UringPoller::Clock::time_point UringPoller::tend_starved() noexcept {
  const auto now = Clock::now();
  auto wake_by = Clock::time_point::max();
  OpQueue waiting = std::move(starved_);
  while (IoOp* op = waiting.pop_front()) {
    if (op->timeout_.count() > 0 && op->expires_ <= now) {
      finish(*op, -ETIMEDOUT);
    } else {
      if (op->timeout_.count() > 0) wake_by = std::min(wake_by, op->expires_);
      starved_.push_back(*op);
    }
  }
  RecvBufferPool& pool = *recv_pool_if_made();
  std::size_t budget = ring_kind_ == BufferRing::provided ? in_ring_ : pool.free_count();
  while (budget-- > 0 && !starved_.empty()) queue_sqes(*starved_.pop_front());
  return starved_.empty() ? Clock::time_point::max() : wake_by;
}

}  // namespace duet::detail
