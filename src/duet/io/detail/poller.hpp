// duet::detail::Poller — the base each backend implements behind EventLoop.
//
// Contract: exactly EventLoop's per-op contract (io_op.hpp, event_loop.hpp); the
// loop forwards to it 1:1 and adds only the stop flag. make_poller is the one
// place where a Backend value turns into a backend type.
//
// Shared machinery: a backend never calls complete_ itself. It calls finish(op,
// res) when it learns a result (op goes to completed_, state queued) and
// deliver() at the end of a turn hands that snapshot to the owners. An op that
// is queued but not yet delivered can still be withdrawn by take_finished()
// (abandon), which is what makes destroying a waiter safe at any moment.
//
// Cross-thread inbox: other threads push LoopMessages (push_message, the only
// members callable off the loop's thread besides wake/wake_peer); each turn
// runs them (drain_inbox) before it delivers. A backend brackets every wait
// that may block with may_sleep()/awake(): the "sleeping" flag tells senders
// when a wake-up is needed at all, so a burst of messages costs one.
//
//   std::unique_ptr<Poller> p = make_poller(Backend::epoll, options);
//   p->submit(op); p->turn(deadline);
#pragma once

#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "duet/io/backend.hpp"
#include "duet/io/detail/op_queue.hpp"
#include "duet/io/detail/recv_buffer_pool.hpp"
#include "duet/io/io_op.hpp"
#include "duet/io/loop_message.hpp"

namespace duet {
struct LoopOptions;
}

namespace duet::detail {

class Poller {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int pending = INT_MIN;  // == EventLoop::pending

  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  Poller(Poller&&) = delete;
  Poller& operator=(Poller&&) = delete;
  virtual ~Poller() = default;

  virtual void submit(IoOp& op) noexcept = 0;
  // EventLoop::start; the default never finishes inline.
  virtual int start(IoOp& op) noexcept {
    submit(op);
    return pending;
  }
  virtual void cancel(IoOp& op) noexcept = 0;
  virtual int abandon(IoOp& op) noexcept = 0;
  // EventLoop::post: a result known in user space, kept apart from the
  // kernel's (posted_) so that deliver() can run a bounded chain of them in
  // one turn; both backends' turn() skip waiting while any is there.
  void post(IoOp& op, int res) noexcept;
  // Push work, wait until something finishes, wake() or deadline (a deadline in
  // the past means "do not wait"), deliver completions. Returns deliveries.
  virtual std::size_t turn(Clock::time_point deadline) = 0;
  virtual void wake() noexcept = 0;  // async-signal-safe
  // EventLoop::close_fd, right before fd is closed: every op still pending on
  // fd finishes with -ECANCELED (delivered by the next turn, complete_ runs
  // once as for any cancel), on both backends, as asio's close does. An op
  // that already had its result keeps it.
  virtual void forget_fd(int fd) noexcept = 0;
  [[nodiscard]] std::size_t in_flight() const noexcept { return in_flight_; }

  // Any thread: queues msg for drain_inbox. True when the loop may be asleep
  // and nobody has woken it yet: the caller must then wake it (wake, or a peer
  // ring's wake_peer). Exactly one sender of a burst gets true.
  bool push_message(LoopMessage& msg) noexcept;
  // Wakes target from this poller's thread without its eventfd where the
  // backend can (io_uring: IORING_OP_MSG_RING to a peer ring). False: the
  // caller falls back to target.wake().
  virtual bool wake_peer(Poller& /*target*/) noexcept { return false; }
  // The ring fd a peer may message (IORING_OP_MSG_RING), or -1.
  [[nodiscard]] virtual int message_ring_fd() const noexcept { return -1; }
  // EventLoop::expect / fulfil / abandon of a remote op (event_loop.hpp).
  void expect(IoOp& op) noexcept;
  void fulfil(IoOp& op, int res) noexcept;
  int abandon_remote(IoOp& op) noexcept;
  // EventLoop::await_reply / reply_arrived.
  void await_reply() noexcept { ++replies_awaited_; }
  void reply_arrived() noexcept { --replies_awaited_; }
  [[nodiscard]] bool awaits_reply() const noexcept { return replies_awaited_ != 0; }
  // Runs the queued messages (up to inbox_budget); loop thread only.
  std::size_t drain_inbox() noexcept;
  [[nodiscard]] bool inbox_empty() const noexcept { return inbox_.empty(); }
  // Messages drain_inbox ran since the last call.
  std::size_t take_drained() noexcept { return std::exchange(drained_, 0); }

  // OpKind::recv_pooled: the owner gives a buffer back (EventLoop's contract).
  virtual void release_recv_buffer(std::uint16_t id) noexcept = 0;

 protected:
  explicit Poller(const LoopOptions& options) noexcept;
  // The pool, made on the first recv_pooled; null if it cannot be made (the op
  // then fails with -ENOMEM).
  RecvBufferPool* recv_pool() noexcept;
  [[nodiscard]] RecvBufferPool* recv_pool_if_made() const noexcept { return pool_.get(); }
  // recv_pooled ops that found no free buffer; each backend retries them at the
  // start of a turn once buffers are back (owners return them while the
  // previous turn delivers), so an empty pool delays a recv but never fails it.
  OpQueue starved_;

  // Takes the starved ops on fd out of starved_ (forget_fd).
  OpQueue take_starved(int fd) noexcept;

  // Bookkeeping common to both backends.
  void started(IoOp& op) noexcept;
  void finish(IoOp& op, int res) noexcept;
  // finish(op, -ECANCELED) for an op the loop cancels on its owner's behalf.
  void finish_cancelled(IoOp& op) noexcept;
  // If op has a result waiting for delivery, withdraw it: true and op.res_ set.
  bool take_finished(IoOp& op) noexcept;
  [[nodiscard]] bool has_finished() const noexcept { return !completed_.empty() || !posted_.empty(); }
  std::size_t deliver() noexcept;
  static constexpr std::size_t posted_budget = 64;
  // Before a wait that may block: announce the sleep, then look at the inbox
  // once more. False: a message is there (or half pushed), do not block.
  bool may_sleep() noexcept;
  // Before may_sleep, while a reply is awaited: watch the inbox for up to
  // LoopOptions::reply_spin, never past deadline (a timer's). True: a
  // message came (do not block).
  bool spin_for_reply(Clock::time_point deadline) noexcept;
  [[nodiscard]] bool spin_worthwhile() const noexcept {
    return replies_awaited_ != 0 && reply_spin_ > Clock::duration::zero();
  }
  void awake() noexcept { sleeping_.store(false, std::memory_order_relaxed); }
  // Messages run per turn at most; the rest keep the next turn from blocking.
  static constexpr std::size_t inbox_budget = 1024;

 private:
  std::size_t deliver_all(OpQueue& from) noexcept;
  void complete(IoOp& op) noexcept;

  std::size_t pool_count_;
  std::size_t pool_buffer_size_;
  std::unique_ptr<RecvBufferPool> pool_;
  OpQueue completed_;   // results learnt this turn, not yet delivered
  OpQueue delivering_;  // the snapshot being delivered right now
  OpQueue posted_;      // EventLoop::post results, delivered after the snapshot
  std::size_t in_flight_ = 0;
  MpscQueue inbox_;                     // LoopMessages from any thread
  std::size_t drained_ = 0;
  std::size_t replies_awaited_ = 0;  // await_reply's, not yet answered
  Clock::duration reply_spin_;
  alignas(64) std::atomic<bool> sleeping_{false};  // set by the loop around a blocking wait
};

std::unique_ptr<Poller> make_poller(Backend backend, const LoopOptions& options);

}  // namespace duet::detail
