// Poller: the delivery machinery both backends share, and the one place where a
// Backend value picks a backend type.
#include "duet/io/detail/poller.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <thread>
#include <utility>

#include "duet/io/detail/epoll_poller.hpp"
#include "duet/io/detail/sim_poller.hpp"
#include "duet/io/detail/uring_poller.hpp"
#include "duet/io/event_loop.hpp"

namespace duet::detail {

Poller::Poller(const LoopOptions& options) noexcept
    : pool_count_(options.recv_buffer_count),
      pool_buffer_size_(options.recv_buffer_size),
      reply_spin_(options.reply_spin) {}

RecvBufferPool* Poller::recv_pool() noexcept {
  if (!pool_) {
    try {
      pool_ = std::make_unique<RecvBufferPool>(pool_count_, pool_buffer_size_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "duet: no recv buffer pool: %s\n", e.what());
    }
  }
  return pool_.get();
}

void Poller::started(IoOp& op) noexcept {
  op.next_ = nullptr;
  op.cancel_requested_ = false;
  op.res_ = 0;
  op.heap_index_ = 0;
  ++in_flight_;
}

void Poller::finish(IoOp& op, int res) noexcept {
  op.res_ = res;
  op.state_ = OpState::queued;
  completed_.push_back(op);
}

void Poller::finish_cancelled(IoOp& op) noexcept {
  op.cancel_requested_ = true;
  finish(op, -ECANCELED);
}

OpQueue Poller::take_starved(int fd) noexcept {
  OpQueue gone;
  OpQueue all = std::move(starved_);
  while (IoOp* op = all.pop_front()) (op->fd_ == fd ? gone : starved_).push_back(*op);
  return gone;
}

void Poller::post(IoOp& op, int res) noexcept {
  started(op);
  op.res_ = res;
  op.state_ = OpState::queued;
  posted_.push_back(op);
}

bool Poller::take_finished(IoOp& op) noexcept {
  if (op.state_ != OpState::queued) return false;
  if (!completed_.remove(op) && !delivering_.remove(op)) posted_.remove(op);
  op.state_ = OpState::done;
  --in_flight_;
  return true;
}

// Delivers a snapshot: ops finishing while we deliver (a complete_ that submits
// work which ends at once) wait for the next turn, so a busy chain of
// completions cannot starve the kernel polling. Posted results (EventLoop::post:
// a Mutex handed over, an Event set) follow, all that are there; then those
// they post themselves run on as a chain, up to posted_budget more: a lock
// passing between two tasks costs one kernel entry per ~64 hand-offs instead of
// one per hand-off (io_uring enters the kernel on every turn), and polling
// still comes round.
std::size_t Poller::deliver() noexcept {
  std::size_t count = deliver_all(completed_);
  count += deliver_all(posted_);
  for (std::size_t extra = 0; extra < posted_budget && !posted_.empty(); ++extra) {
    complete(*posted_.pop_front());
    ++count;
  }
  return count;
}

// Through delivering_, where take_finished (abandon) still finds each op.
std::size_t Poller::deliver_all(OpQueue& from) noexcept {
  delivering_ = std::move(from);
  std::size_t count = 0;
  while (IoOp* op = delivering_.pop_front()) {
    complete(*op);
    ++count;
  }
  return count;
}

void Poller::complete(IoOp& op) noexcept {
  op.state_ = OpState::done;
  --in_flight_;
  op.complete_(&op, op.res_);
}

// The wake rule, a Dekker pair: the sender stores (push's exchange on the
// inbox) then loads sleeping_; the loop stores sleeping_ then loads the inbox
// (empty). With a seq_cst fence between each store and load, at least one side
// sees the other's store: either the loop finds the message and does not
// block, or the sender finds the flag and wakes it. The exchange clears the
// flag, so the other senders of a burst skip the wake-up: one per burst.
bool Poller::push_message(LoopMessage& msg) noexcept {
  inbox_.push(msg);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return sleeping_.load(std::memory_order_relaxed) && sleeping_.exchange(false, std::memory_order_acq_rel);
}

bool Poller::may_sleep() noexcept {
  sleeping_.store(true, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (inbox_.empty()) return true;
  awake();
  return false;
}

// The sleeping flag stays clear while we spin, so a sender only pushes: no
// wake-up on its side, no context switch on ours. The clock is read once per
// 64 looks at the inbox (a look is one load of a line the sender writes).
bool Poller::spin_for_reply(Clock::time_point deadline) noexcept {
  if (!spin_worthwhile()) return false;
  const Clock::time_point end = std::min(deadline, Clock::now() + reply_spin_);
  do {
    for (int i = 0; i < 64; ++i) {
      if (!inbox_.empty()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
  } while (Clock::now() < end);
  return false;
}

std::size_t Poller::drain_inbox() noexcept {
  std::size_t count = 0;
  while (count < inbox_budget) {
    MpscNode* node = inbox_.pop();
    if (node == nullptr) break;
    auto* msg = static_cast<LoopMessage*>(node);
    msg->run_(msg);
    ++count;
  }
  drained_ += count;
  return count;
}

void Poller::expect(IoOp& op) noexcept {
  started(op);
  op.state_ = OpState::remote;
}

// From a message's run_, so on the loop's thread: the op joins the posted
// results, delivered by this turn's deliver() (drain_inbox runs before it).
void Poller::fulfil(IoOp& op, int res) noexcept {
  op.res_ = res;
  op.state_ = OpState::queued;
  posted_.push_back(op);
}

// The reply is another thread's to send: run the inbox until it has come. A
// message pushed while we look may be half linked (pop says nothing yet), so
// this polls with a yield rather than sleeping on the wake-up.
int Poller::abandon_remote(IoOp& op) noexcept {
  while (op.state_ == OpState::remote) {
    drain_inbox();
    if (op.state_ == OpState::remote) std::this_thread::yield();
  }
  take_finished(op);
  return op.res_;
}

std::unique_ptr<Poller> make_poller(Backend backend, const LoopOptions& options) {
  switch (backend) {
    case Backend::io_uring:
      return std::make_unique<UringPoller>(options);
    case Backend::sim:
      return std::make_unique<SimPoller>(options);
    case Backend::epoll:
      break;
  }
  return std::make_unique<EpollPoller>(options);
}

}  // namespace duet::detail
