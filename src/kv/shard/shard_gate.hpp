// duet::kv::ShardGate — the lock of one shard's keyspace that a command over
// several shards holds while it runs (kv/shard/shard_job.hpp).
//
// Contract
// - A reader-writer lock whose waiters queue in FIFO order. A job over
//   several shards takes the gates of its shards one by one in ascending
//   shard order and holds each until it is done, so two jobs that share
//   shards meet first on the lowest one and run in one order on every shard,
//   and no command sees a job half applied (docs/KV.md, "Many shards"). A job
//   that only reads (MGET, EXISTS, DBSIZE ...) shares the gates with other
//   readers; one that writes takes them alone.
// - Modes (GateWaiter::mode_): `take` holds the gate alone, `share` holds it
//   beside other sharers; `pass_read` and `pass_write` hold nothing, they only
//   wait until a single-shard command may run: a read while nobody holds the
//   gate alone, a write while nobody holds it at all (a reader's job keeps its
//   keys as it read them until it ends).
// - acquire(w) (take/share) and wait(w) (pass_*) say true when w may go on
//   now; false queues w, and its resume_ runs once its turn comes (w then
//   holds the gate when it takes or shares). A taker or sharer queues behind
//   anyone queued before it, so a stream of readers cannot starve a writer; a
//   passer holds nothing and goes as soon as its mode allows, but never past
//   a queued passer (a passer is a connection's batch, and its batches to a
//   shard run in the order sent); passes(mode): whether one would go now.
//   release(w) gives up what w holds and resumes waiters from the queue's head
//   for as long as each may go on. It does not nest: a release from inside a
//   resume_ is finished by the outer one.
// - A queued passer does its work inside its resume_ (RemoteBatch runs its
//   commands there): the same drain goes on to the waiters behind it, so a
//   passer that only noted its turn and came back later would find the gate
//   taken again, and could wait for ever behind a stream of readers' jobs.
// - cancel(w) unlinks a queued waiter (its owner goes away first).
// - Intrusive, no allocation. One thread: the shard's.
//
//   waiter.mode_ = GateWaiter::Mode::pass_write;
//   if (!gate.wait(waiter)) return;  // queued: waiter.resume_ runs the commands later
//   run_commands();
#pragma once

#include <cstddef>

namespace duet::kv {

struct GateWaiter {
  enum class Mode : unsigned char { pass_write, pass_read, take, share };
  void (*resume_)(GateWaiter* self) noexcept = nullptr;
  Mode mode_ = Mode::pass_write;
  bool queued_ = false;
  GateWaiter* prev_ = nullptr;
  GateWaiter* next_ = nullptr;
};

class ShardGate {
 public:
  using Mode = GateWaiter::Mode;

  ShardGate() = default;
  ShardGate(const ShardGate&) = delete;
  ShardGate& operator=(const ShardGate&) = delete;
  ~ShardGate() = default;

  // Nobody holds the gate: any command may run (the cron's expiry too).
  [[nodiscard]] bool open() const noexcept { return holder_ == nullptr && sharers_ == 0; }
  // Nobody holds it alone: a command that only reads may run.
  [[nodiscard]] bool open_for_reads() const noexcept { return holder_ == nullptr; }
  [[nodiscard]] const GateWaiter* holder() const noexcept { return holder_; }
  [[nodiscard]] std::size_t sharers() const noexcept { return sharers_; }
  // A passer in `mode` would go on now (wait(w) would say true).
  [[nodiscard]] bool passes(Mode mode) const noexcept { return queued_passers_ == 0 && admits(mode); }

  // w.mode_ is take or share. True: w holds the gate now; false: queued.
  bool acquire(GateWaiter& w) noexcept {
    if (head_ == nullptr && admits(w)) {
      hold(w);
      return true;
    }
    push(w);
    return false;
  }
  // w.mode_ is pass_read or pass_write. True: go on now; false: queued.
  bool wait(GateWaiter& w) noexcept {
    if (passes(w.mode_)) return true;
    push(w);
    return false;
  }
  void cancel(GateWaiter& w) noexcept {
    if (w.queued_) unlink(w);
  }
  // w held the gate (acquire said true, or its resume_ ran).
  void release(const GateWaiter& w) noexcept {
    if (w.mode_ == Mode::share) {
      --sharers_;
    } else {
      holder_ = nullptr;
    }
    if (draining_) return;
    draining_ = true;
    while (head_ != nullptr && admits(*head_)) {
      GateWaiter* next = head_;
      unlink(*next);
      hold(*next);
      next->resume_(next);
    }
    draining_ = false;
  }

 private:
  [[nodiscard]] static bool passer(Mode mode) noexcept { return mode == Mode::pass_read || mode == Mode::pass_write; }
  [[nodiscard]] bool admits(const GateWaiter& w) const noexcept { return admits(w.mode_); }
  [[nodiscard]] bool admits(Mode mode) const noexcept {
    switch (mode) {
      case Mode::pass_read:
      case Mode::share:
        return holder_ == nullptr;
      case Mode::pass_write:
      case Mode::take:
        return holder_ == nullptr && sharers_ == 0;
    }
    return false;
  }
  void hold(GateWaiter& w) noexcept {
    if (w.mode_ == Mode::take) holder_ = &w;
    if (w.mode_ == Mode::share) ++sharers_;
  }
  void push(GateWaiter& w) noexcept {
    w.queued_ = true;
    if (passer(w.mode_)) ++queued_passers_;
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
    if (passer(w.mode_)) --queued_passers_;
  }

  GateWaiter* holder_ = nullptr;  // the one that took the gate alone
  std::size_t sharers_ = 0;
  std::size_t queued_passers_ = 0;
  GateWaiter* head_ = nullptr;
  GateWaiter* tail_ = nullptr;
  bool draining_ = false;
};

}  // namespace duet::kv
