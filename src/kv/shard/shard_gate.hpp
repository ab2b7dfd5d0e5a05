// duet::kv::ShardGate — the lock of one shard's keyspace that a command over
// several shards holds while it runs (kv/shard/shard_job.hpp).
//
// Contract
// - A command on one shard runs only while the gate is open (no holder); a
//   job over several shards takes the gates of its shards one by one in
//   ascending shard order and holds each until it is done, so two jobs that
//   share shards meet first on the lowest one and run in one order on every
//   shard, and no reader sees a job half applied (docs/KV.md, "Many shards").
// - Waiters queue in FIFO order: acquire(w) takes the gate (w.exclusive_) or
//   queues; wait(w) passes when open, else queues until a release; a queued
//   waiter's resume_ runs on release. release() resumes passers from the
//   queue's head until a taker gets the gate (or the queue empties). It does
//   not nest: a release from inside a resume_ is finished by the outer one.
// - cancel(w) unlinks a queued waiter (its owner goes away first).
// - Intrusive, no allocation. One thread: the shard's.
//
//   if (!gate.wait(waiter)) return;  // queued: waiter.resume_ runs later
//   run_commands();
#pragma once

namespace duet::kv {

struct GateWaiter {
  void (*resume_)(GateWaiter* self) noexcept = nullptr;
  bool exclusive_ = false;  // takes the gate when its turn comes
  bool queued_ = false;
  GateWaiter* prev_ = nullptr;
  GateWaiter* next_ = nullptr;
};

class ShardGate {
 public:
  ShardGate() = default;
  ShardGate(const ShardGate&) = delete;
  ShardGate& operator=(const ShardGate&) = delete;
  ~ShardGate() = default;

  [[nodiscard]] bool open() const noexcept { return holder_ == nullptr; }
  [[nodiscard]] const GateWaiter* holder() const noexcept { return holder_; }

  // w.exclusive_ must be true. True: w holds the gate now; false: queued.
  bool acquire(GateWaiter& w) noexcept {
    if (holder_ == nullptr) {
      holder_ = &w;
      return true;
    }
    push(w);
    return false;
  }
  // True: the gate is open now; false: queued until a release.
  bool wait(GateWaiter& w) noexcept {
    if (holder_ == nullptr) return true;
    push(w);
    return false;
  }
  void cancel(GateWaiter& w) noexcept {
    if (w.queued_) unlink(w);
  }
  void release() noexcept {
    holder_ = nullptr;
    if (draining_) return;
    draining_ = true;
    while (holder_ == nullptr && head_ != nullptr) {
      GateWaiter* w = head_;
      unlink(*w);
      if (w->exclusive_) holder_ = w;
      w->resume_(w);
    }
    draining_ = false;
  }

 private:
  void push(GateWaiter& w) noexcept {
    w.queued_ = true;
    w.prev_ = tail_;
    w.next_ = nullptr;
    (tail_ != nullptr ? tail_->next_ : head_) = &w;
    tail_ = &w;
  }
  void unlink(GateWaiter& w) noexcept {
    (w.prev_ != nullptr ? w.prev_->next_ : head_) = w.next_;
    (w.next_ != nullptr ? w.next_->prev_ : tail_) = w.prev_;
    w.prev_ = w.next_ = nullptr;
    w.queued_ = false;
  }

  GateWaiter* holder_ = nullptr;
  GateWaiter* head_ = nullptr;
  GateWaiter* tail_ = nullptr;
  bool draining_ = false;
};

}  // namespace duet::kv
