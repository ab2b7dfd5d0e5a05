// SimThreads: a baton under one mutex. The holder runs; everyone else waits
// on the condition variable for holder_ to name them. The mutex hand-off is
// also what orders one thread's writes before the next one's reads (for
// ThreadSanitizer as for the CPU).
#include "duet/io/sim/sim_threads.hpp"

#include <algorithm>

#include "duet/io/sim_world.hpp"

namespace duet::detail {

namespace {
thread_local std::size_t t_sim_thread = 0;
}

SimThreads::SimThreads(SimWorld& world) : world_(world) {
  wakes_.push_back(std::make_unique<std::condition_variable>());
  parts_.emplace_back();
  parts_[0].started = true;  // the world's own thread: it makes the others
  parts_[0].wake = wakes_[0].get();
}

std::size_t SimThreads::current() noexcept { return t_sim_thread; }

std::size_t SimThreads::add() {
  std::lock_guard lock(mutex_);
  wakes_.push_back(std::make_unique<std::condition_variable>());
  parts_.emplace_back();
  parts_.back().wake = wakes_.back().get();
  alive_.fetch_add(1, std::memory_order_relaxed);
  activity_.fetch_add(1, std::memory_order_relaxed);
  round_busy_ = true;  // it must have a turn before time may move
  world_.trace(0x7a2ead00ULL + parts_.size());
  return parts_.size() - 1;
}

void SimThreads::forget(std::size_t id) noexcept {
  std::lock_guard lock(mutex_);
  if (!parts_[id].alive) return;
  parts_[id].alive = false;
  alive_.fetch_sub(1, std::memory_order_relaxed);
}

void SimThreads::enter(std::size_t id) {
  world_.install_on_this_thread();
  t_sim_thread = id;
  std::unique_lock lock(mutex_);
  parts_[id].wake->wait(lock, [&] { return holder_ == id; });
}

void SimThreads::leave() noexcept {
  std::unique_lock lock(mutex_);
  parts_[t_sim_thread].alive = false;
  alive_.fetch_sub(1, std::memory_order_relaxed);
  activity_.fetch_add(1, std::memory_order_relaxed);
  round_busy_ = true;  // a thread gone may be what another waits for
  if (holder_ == t_sim_thread) hand_on(lock);
}

bool SimThreads::alive(std::size_t id) const {
  std::lock_guard lock(mutex_);
  return id < parts_.size() && parts_[id].alive;
}

void SimThreads::note_busy() {
  std::lock_guard lock(mutex_);
  activity_.fetch_add(1, std::memory_order_relaxed);
  round_busy_ = true;
}

void SimThreads::add_inbox(const void* poller, HasMessages has_messages) {
  std::lock_guard lock(mutex_);
  inboxes_.push_back(Inbox{poller, has_messages, t_sim_thread});
}

void SimThreads::remove_inbox(const void* poller) noexcept {
  std::lock_guard lock(mutex_);
  std::erase_if(inboxes_, [poller](const Inbox& entry) { return entry.poller == poller; });
}

void SimThreads::pass(bool busy, std::optional<TimePoint> next) {
  const std::size_t me = t_sim_thread;
  std::unique_lock lock(mutex_);
  Part& part = parts_[me];
  busy = busy || !part.started;
  if (busy) activity_.fetch_add(1, std::memory_order_relaxed);
  part.next = next;
  part.idle = !busy;
  part.seen = activity_.load(std::memory_order_relaxed);
  part.started = true;
  round_busy_ = round_busy_ || busy;
  hand_on(lock);
  part.wake->wait(lock, [&] { return holder_ == me; });
}

// Its turn would be idle: it was idle, nothing happened since, no message
// waits for it, and its next event has not come.
bool SimThreads::may_skip(std::size_t id) const {
  const Part& p = parts_[id];
  if (!p.started || !p.idle || p.seen != activity_.load(std::memory_order_relaxed)) return false;
  if (p.next && *p.next <= world_.now()) return false;
  for (const Inbox& inbox : inboxes_) {
    if (inbox.thread == id && inbox.has_messages(inbox.poller)) return false;
  }
  return true;
}

// The next live thread of this round; at a round's end, time moves if
// nobody was busy, and a new round is drawn.
void SimThreads::hand_on(std::unique_lock<std::mutex>& /*lock*/) {
  for (;;) {
    while (!round_.empty()) {
      const std::size_t id = round_.back();
      round_.pop_back();
      if (!parts_[id].alive || may_skip(id)) continue;
      holder_ = id;
      world_.trace(0xba70ULL ^ (id << 16));
      parts_[id].wake->notify_one();
      return;
    }
    for (const Inbox& inbox : inboxes_) round_busy_ = round_busy_ || inbox.has_messages(inbox.poller);
    if (!round_busy_ && !round_first_) {
      std::optional<TimePoint> earliest;
      for (const Part& p : parts_) {
        if (p.alive && p.next && (!earliest || *p.next < *earliest)) earliest = p.next;
      }
      if (!earliest) world_.deadlock();
      world_.advance_to(*earliest);
    }
    round_first_ = false;
    round_busy_ = false;
    for (std::size_t id = 0; id < parts_.size(); ++id) {
      if (parts_[id].alive) round_.push_back(id);
    }
    for (std::size_t i = round_.size(); i > 1; --i) std::swap(round_[i - 1], round_[world_.below(i)]);
  }
}

}  // namespace duet::detail
