// duet::detail::SimThreads — several threads under one SimWorld, taking turns.
//
// Why: a ShardSet starts a real thread per shard, and much of duet finds
// "the current loop / scheduler / shard" in thread-locals. Under simulation
// the threads stay real (so every thread-local, stack and fiber scheduler
// works unchanged), but only one runs at a time: it holds the baton, and
// hands it on only where it would otherwise wait, or between two turns of
// its loop, to a thread the seed draws. The interleaving of the shards is
// then a function of the seed, and replays.
//
// Contract
// - Thread 0 is the world's own. add() (by the baton's holder, before it
//   starts the thread) names a new one, which joins the next round; that
//   thread calls enter(id) first (it installs the world there and waits for
//   the baton) and leave() last (it hands the baton on for good).
// - pass(busy, next): the holder gives the baton up until its next turn.
//   busy: it changed something (ran a completion, a message, work); next:
//   the earliest virtual time at which it has something to do by itself.
//   Every live thread gets one turn per round, in a seeded order; a round
//   in which none was busy moves the clock to the earliest `next`, or, with
//   none, is a deadlock (the world's handler). A thread whose last turn was
//   idle is skipped while nothing has happened since anywhere (no busy turn,
//   no message for it) and its `next` has not come: its turn would be idle
//   again, and each real hand-off costs a futex wake-up.
// - note_activity(): a busy turn that keeps the baton (cheap, no lock).
// - Speed: a hand-off is a futex wake-up; across CPUs (an IPI, in a VM) it
//   cost ~18 µs here, on one CPU ~5 µs. Only one thread runs at a time, so
//   pin a simulation to one CPU (duet-kv-sim does; `taskset -c N` for yours).
// - count(): live threads (more than one: SimPoller hands the baton on).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace duet {
class SimWorld;
}

namespace duet::detail {

class SimThreads {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit SimThreads(SimWorld& world);

  [[nodiscard]] std::size_t add();
  void forget(std::size_t id) noexcept;  // add()ed, but its thread never started
  void enter(std::size_t id);
  void leave() noexcept;
  void pass(bool busy, std::optional<TimePoint> next);
  [[nodiscard]] bool alive(std::size_t id) const;
  // The holder changed something others may wait for outside any loop (a
  // ShardSet finishing): the round is not idle.
  void note_busy();
  void note_activity() noexcept { activity_.fetch_add(1, std::memory_order_relaxed); }
  // The loops' inboxes (SimPoller): a round is idle only if every one is empty.
  using HasMessages = bool (*)(const void* poller);
  void add_inbox(const void* poller, HasMessages has_messages);
  void remove_inbox(const void* poller) noexcept;
  [[nodiscard]] std::size_t count() const noexcept { return alive_.load(std::memory_order_relaxed); }
  // This thread's number under its world (0: the world's own, or none).
  [[nodiscard]] static std::size_t current() noexcept;

 private:
  struct Part {
    bool alive = true;
    bool started = false;  // has passed once: its start-up code (before any turn) counts as busy
    bool idle = false;     // its last pass was idle
    std::uint64_t seen = 0;  // activity_ at its last pass
    std::optional<TimePoint> next;
    std::condition_variable* wake = nullptr;  // its own: a hand-off wakes only the next holder
  };
  [[nodiscard]] bool may_skip(std::size_t id) const;
  void hand_on(std::unique_lock<std::mutex>& lock);

  SimWorld& world_;
  mutable std::mutex mutex_;
  std::vector<Part> parts_;
  struct Inbox {
    const void* poller;
    HasMessages has_messages;
    std::size_t thread;
  };
  std::vector<Inbox> inboxes_;
  std::vector<std::unique_ptr<std::condition_variable>> wakes_;  // one per thread, stable addresses
  std::vector<std::size_t> round_;  // who is still to have a turn this round (popped from the back)
  bool round_busy_ = false;
  bool round_first_ = true;  // no round has run yet: nothing to conclude from it
  std::size_t holder_ = 0;
  std::atomic<std::size_t> alive_{1};
  std::atomic<std::uint64_t> activity_{0};  // busy turns, threads come and gone, a set finished
};

}  // namespace duet::detail
