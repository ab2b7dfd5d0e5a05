// ShardSet: starting the shard threads, and stopping them without losing a
// message. The stop is a termination detection: the set is finished once,
// after the stop, every shard is quiet at the same time and no message to any
// shard is unrun. It is counted so that a message between shards costs no
// write to anything the shards share until the stop:
//
// - Before a shard hears its stop, it counts in plain owner-only counters:
//   its loop's messages_sent_ (sends from its thread to loops of the set,
//   EventLoop::count_send) and messages_run_ (messages its loop ran). Only a
//   thread that is no shard of the set adds its sends to activity_ at once.
// - request_stop enlists every shard (one unit of activity_ and one of
//   unenrolled_ each, all before the first stop message goes out), then sends
//   the stops. After the turn that ran its stop, a shard enrolls: it adds
//   sent - run to activity_ (its whole history), keeps its unit only if it is
//   not quiet, switches its loop to live counting (every later send adds 1 to
//   activity_ before the push, every turn subtracts what it ran), and only
//   then decrements unenrolled_.
// - Once unenrolled_ is 0, every send of the set's life has been added and
//   every run subtracted, exactly once: activity_ = unrun messages + messages
//   run but not yet subtracted + one per stopping shard that was not quiet at
//   its last turn's end. A shard takes its unit back, in the same RMW that
//   subtracts the turn's messages, before the message that woke it can leave
//   the count; so activity_ cannot touch zero while a message is unrun or a
//   stopped shard has work, and cannot leave zero afterwards (quiet shards
//   with empty inboxes send nothing).
// - Before that, activity_ may pass through zero by accident (a shard's run
//   subtracted before the sender's enrollment adds the send): zero counts only
//   when seen after unenrolled_ == 0. Whoever makes activity_ zero then loads
//   unenrolled_, and whoever makes unenrolled_ zero then loads activity_; all
//   seq_cst, so at least one of them sees the other's write (the Dekker
//   pattern) and calls finish. A finish check reads unenrolled_ == 0 first
//   (acquire: every enrollment's add happened before) and then activity_ == 0,
//   so it never sees a zero from before the last enrollment.
#include "duet/runtime/shard_set.hpp"

#include <pthread.h>
#include <sched.h>

#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "duet/io/sim/sim_threads.hpp"
#include "duet/io/sim_world.hpp"

namespace duet {

namespace {

// initial-exec: see event_loop.cpp's thread_loop.
[[gnu::tls_model("initial-exec")]] constinit thread_local Shard* current_shard = nullptr;

void pin_to(int cpu) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(cpu, &cpus);
  const int r = ::pthread_setaffinity_np(::pthread_self(), sizeof cpus, &cpus);
  if (r != 0) throw std::system_error(r, std::generic_category(), "pthread_setaffinity_np");
}

class LoopRunner final : public ShardRunner {
 public:
  void run(Shard& shard) override {
    EventLoop loop(shard.set().options().backend, shard.set().options().loop);
    ShardHost host(shard, loop);
    while (!host.finished()) loop.run_once(EventLoop::forever);
  }
};

}  // namespace

Shard* this_shard() noexcept { return current_shard; }
std::size_t shard_count() noexcept { return current_shard != nullptr ? current_shard->set().size() : 0; }

ShardRunner& loop_runner() noexcept {
  static LoopRunner runner;
  return runner;
}

void Shard::report(std::exception_ptr error) noexcept { set_->record_error(std::move(error)); }

ShardSet::ShardSet(ShardSetOptions options, ShardRunner& runner) : options_(std::move(options)), runner_(runner) {
  if (options_.shards == 0) throw std::invalid_argument("duet: a ShardSet needs at least one shard");
  if (options_.backend == Backend::sim) {
    sim_ = SimWorld::current();
    if (sim_ == nullptr) throw std::logic_error("duet: a ShardSet on Backend::sim needs a SimWorld on this thread");
    options_.cpus.clear();
  }
  shards_.reserve(options_.shards);
  for (std::size_t i = 0; i < options_.shards; ++i) shards_.push_back(std::make_unique<Shard>(*this, i));
  start_threads(options_.calling_thread ? 1 : 0);
}

ShardSet::~ShardSet() {
  request_stop();
  try {
    join();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "duet: ShardSet destroyed with an uncollected error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "duet: ShardSet destroyed with an uncollected error\n");
  }
}

// Waits until each thread has its loop up (or has failed before that).
void ShardSet::start_threads(std::size_t first) {
  try {
    for (std::size_t i = first; i < size(); ++i) {
      if (sim_ == nullptr) {
        threads_.emplace_back([this, s = shards_[i].get()] { thread_main(*s); });
        continue;
      }
      const std::size_t id = sim_->threads().add();  // named before it starts: the order is the program's
      try {
        threads_.emplace_back([this, s = shards_[i].get(), id] {
          sim_->threads().enter(id);
          thread_main(*s);
          sim_->threads().leave();
        });
      } catch (...) {
        sim_->threads().forget(id);
        throw;
      }
      sim_ids_.push_back(id);
    }
  } catch (...) {
    record_error(std::current_exception());
  }
  std::unique_lock lock(mutex_);
  if (sim_ != nullptr) {  // the threads run only when handed the baton: hand it on until they are up
    while (attached_ < threads_.size()) {
      lock.unlock();
      sim_->threads().pass(false, std::nullopt);
      lock.lock();
    }
  }
  cv_.wait(lock, [&] { return attached_ >= threads_.size(); });
  if (!error_) return;
  lock.unlock();
  stop();  // rethrows the start failure
}

void ShardSet::thread_main(Shard& shard) {
  try {
    if (!options_.cpus.empty()) pin_to(options_.cpus[shard.id() % options_.cpus.size()]);
    runner_.run(shard);
  } catch (...) {
    record_error(std::current_exception());
  }
  std::lock_guard lock(mutex_);
  if (!shard.stop_msg_.shard_) ++attached_;  // failed before its loop was up
  cv_.notify_all();
}

void ShardSet::attached(Shard& shard) {
  std::lock_guard lock(mutex_);
  shard.stop_msg_.shard_ = &shard;
  ++attached_;
  if (stopping_.load(std::memory_order_relaxed)) enlist_and_stop(shard);
  if (shard.id() == 0 && main_) shard.post(std::exchange(main_, nullptr));
  cv_.notify_all();
}

// Every shard is enlisted before the first stop goes out: a shard that hears
// first may be quiet at once, and must not find unenrolled_ at zero while
// the next shard is not yet counted (it would finish the set under the
// others' feet). A shard that has not attached yet (its stop message has no
// shard_) is enlisted by attached(), under the same lock: each exactly once,
// even when its loop is published and the stop comes before it attaches.
void ShardSet::request_stop() noexcept {
  std::lock_guard lock(mutex_);
  if (stopping_.exchange(true)) return;
  for (auto& shard : shards_) {
    if (shard->stop_msg_.shard_ != nullptr) {
      activity_.fetch_add(1, std::memory_order_seq_cst);
      unenrolled_.fetch_add(1, std::memory_order_seq_cst);
    }
  }
  for (auto& shard : shards_) {
    if (shard->stop_msg_.shard_ != nullptr) send_stop(*shard);
  }
}

void ShardSet::enlist_and_stop(Shard& shard) noexcept {
  activity_.fetch_add(1, std::memory_order_seq_cst);
  unenrolled_.fetch_add(1, std::memory_order_seq_cst);
  send_stop(shard);
}

// The shard's stop_source is stopped on its own thread, so stop callbacks
// that cancel ops there obey the loop's thread rule.
void ShardSet::send_stop(Shard& shard) noexcept {
  shard.stop_msg_.run_ = [](LoopMessage* msg) noexcept {
    Shard* self = static_cast<Shard::StopMessage*>(msg)->shard_;
    self->heard_stop_ = true;
    self->stop_.request_stop();
  };
  shard.send(shard.stop_msg_);
}

void ShardSet::join() {
  if (Shard* here = this_shard(); here != nullptr && &here->set() == this) {
    throw std::logic_error("duet: ShardSet::join called from one of its own shards");
  }
  for (std::size_t id : sim_ids_) {  // under simulation they end only in turns of their own
    while (sim_->threads().alive(id)) sim_->threads().pass(false, std::nullopt);
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  std::lock_guard lock(mutex_);
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ShardSet::run(std::function<void()> main) {
  if (!options_.calling_thread) throw std::logic_error("duet: ShardSet::run needs options.calling_thread");
  {
    std::lock_guard lock(mutex_);
    main_ = std::move(main);
  }
  thread_main(shard(0));
  join();
}

void ShardSet::record_error(std::exception_ptr error) noexcept {
  std::lock_guard lock(mutex_);
  if (!error_) error_ = std::move(error);
}

// After every turn of a shard that has heard its stop, on its thread (see
// the top of this file). Before that, nothing: the counts stay in its loop.
void ShardSet::account(Shard& shard) noexcept {
  const bool quiet = shard.loop_->in_flight() <= shard.idle_in_flight_ &&
                     (shard.host_idle_ == nullptr || shard.host_idle_(shard.host_ctx_));
  if (!shard.counts_live_) {
    enroll(shard, quiet);
    return;
  }
  auto change = -static_cast<std::int64_t>(shard.loop_->take_messages_run());
  if (quiet == shard.counted_busy_) {  // takes its unit (busy) or gives it back (quiet)
    change += quiet ? -1 : 1;
    shard.counted_busy_ = !quiet;
  }
  if (change == 0) return;  // whoever made the count zero has checked it
  if (activity_.fetch_add(change, std::memory_order_seq_cst) + change == 0) try_finish();
}

// The shard's first turn after its stop: its history joins the count in one
// RMW (with its enlisted unit, kept if it is busy), its later sends count
// live (this thread is the only one that sends on its plain counter), and
// then it leaves unenrolled_ (the order the finish check relies on).
void ShardSet::enroll(Shard& shard, bool quiet) noexcept {
  EventLoop& loop = *shard.loop_;
  const auto sent = static_cast<std::int64_t>(loop.take_messages_sent());
  const auto ran = static_cast<std::int64_t>(loop.take_messages_run());
  loop.count_live();
  shard.counts_live_ = true;
  shard.counted_busy_ = !quiet;
  const std::int64_t change = sent - ran - (quiet ? 1 : 0);
  if (change != 0) activity_.fetch_add(change, std::memory_order_seq_cst);
  unenrolled_.fetch_sub(1, std::memory_order_seq_cst);
  try_finish();
}

// Finished when every enlisted shard has enrolled and then the count is
// zero (in that order: see the top of this file). Any thread of the set.
void ShardSet::try_finish() noexcept {
  if (unenrolled_.load(std::memory_order_seq_cst) != 0) return;
  if (activity_.load(std::memory_order_seq_cst) == 0) finish();
}

void ShardSet::finish() noexcept {
  if (finished_.exchange(true, std::memory_order_acq_rel)) return;
  if (sim_ != nullptr) sim_->threads().note_busy();  // the shards' loops end on their next turns
  std::lock_guard lock(mutex_);
  for (auto& shard : shards_) {
    if (shard->loop_ != nullptr) shard->loop_->wake();
  }
}

// ShardHost ------------------------------------------------------------------

ShardHost::ShardHost(Shard& shard, EventLoop& loop, ShardHostOptions options)
    : shard_(shard), loop_(loop), finish_op_(options.finish_op) {
  shard.idle_in_flight_ = options.idle_in_flight;
  shard.host_idle_ = options.host_idle;
  shard.host_ctx_ = options.ctx;
  shard.heard_stop_ = false;
  shard.counts_live_ = false;
  shard.counted_busy_ = false;
  loop.count_messages(&shard.set_->activity_);
  // What the loop ran or sent before it joined is no part of the set's count
  // (a runner may have used it first): the plain counts start from zero.
  (void)loop.take_messages_run();
  (void)loop.take_messages_sent();
  loop.on_turn(&ShardHost::after_turn, this);
  current_shard = &shard;
  {
    std::lock_guard lock(shard.set_->mutex_);
    shard.loop_ = &loop;
  }
  shard.set_->attached(shard);
}

ShardHost::~ShardHost() {
  if (!finished()) {  // the runner is unwinding: keep the loop until the set is done
    shard_.set_->request_stop();
    while (!finished()) loop_.run_once(EventLoop::forever);
  }
  {
    std::lock_guard lock(shard_.set_->mutex_);
    shard_.loop_ = nullptr;
  }
  loop_.on_turn(nullptr, nullptr);
  loop_.count_messages(nullptr);
  current_shard = nullptr;
}

bool ShardHost::finished() const noexcept { return shard_.set_->finished_.load(std::memory_order_acquire); }

// Twice a turn on every shard: until the stop, a plain flag and a plain
// state test (the finish op stays remote), no call and no atomic but the
// fiber host's finished() load.
void ShardHost::after_turn(void* self) noexcept {
  auto* host = static_cast<ShardHost*>(self);
  Shard& shard = host->shard_;
  if (shard.heard_stop_) shard.set_->account(shard);
  IoOp* op = host->finish_op_;
  if (op != nullptr && op->state_ == detail::OpState::remote && host->finished()) host->loop_.fulfil(*op, 0);
}

}  // namespace duet
