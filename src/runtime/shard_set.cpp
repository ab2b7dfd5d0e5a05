// ShardSet: starting the shard threads, and stopping them without losing a
// message. The stop is a termination detection over one counter, activity_:
// every send to a shard's loop adds 1 before the message is queued (EventLoop
// count_messages), and the receiving shard subtracts the messages it ran at the
// end of the turn that ran them; after its stop message a shard also holds 1
// while it is not quiet, taken before it subtracts that turn's messages. So
// the counter cannot touch zero while a message is unrun or a stopping shard
// has work, and it cannot leave zero afterwards (nothing is left to send
// anything): whoever sees zero declares the set finished and wakes every loop.
#include "runtime/shard_set.hpp"

#include <pthread.h>
#include <sched.h>

#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace duet {

namespace {

thread_local Shard* current_shard = nullptr;

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
      threads_.emplace_back([this, s = shards_[i].get()] { thread_main(*s); });
    }
  } catch (...) {
    record_error(std::current_exception());
  }
  std::unique_lock lock(mutex_);
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
  if (stopping_.load(std::memory_order_relaxed)) send_stop(shard);
  if (shard.id() == 0 && main_) shard.post(std::exchange(main_, nullptr));
  cv_.notify_all();
}

// The stop messages go out one by one: a shard that hears first may be quiet
// at once, and must not see activity_ at zero while the next stop is unsent
// (it would finish the set under the others' feet). So request_stop holds one
// unit of activity_ until every message is out; whoever drops the count to
// zero finishes, this thread included (each shard was stopped and is quiet).
void ShardSet::request_stop() noexcept {
  bool all_sent = true;
  {
    std::lock_guard lock(mutex_);
    if (stopping_.exchange(true)) return;
    activity_.fetch_add(1, std::memory_order_acq_rel);
    for (auto& shard : shards_) {
      if (shard->loop_ != nullptr) {
        send_stop(*shard);
      } else {
        all_sent = false;  // attached() sends it: that shard will account
      }
    }
  }
  if (activity_.fetch_sub(1, std::memory_order_acq_rel) == 1 && all_sent) finish();
}

// The shard's stop_source is stopped on its own thread, so stop callbacks
// that cancel ops there obey the loop's thread rule.
void ShardSet::send_stop(Shard& shard) noexcept {
  shard.stop_msg_.run_ = [](LoopMessage* msg) noexcept {
    static_cast<Shard::StopMessage*>(msg)->shard_->stop_.request_stop();
  };
  shard.send(shard.stop_msg_);
}

void ShardSet::join() {
  if (Shard* here = this_shard(); here != nullptr && &here->set() == this) {
    throw std::logic_error("duet: ShardSet::join called from one of its own shards");
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

// After every turn of a shard, on its thread (see the top of this file).
void ShardSet::account(Shard& shard) noexcept {
  const auto ran = static_cast<std::int64_t>(shard.loop_->take_messages_run());
  if (!shard.stop_.stop_requested()) {
    if (ran != 0) activity_.fetch_sub(ran, std::memory_order_acq_rel);
    return;
  }
  const bool quiet = shard.loop_->in_flight() <= shard.idle_in_flight_ &&
                     (shard.host_idle_ == nullptr || shard.host_idle_(shard.host_ctx_));
  if (!quiet && !shard.counted_busy_) {
    activity_.fetch_add(1, std::memory_order_acq_rel);
    shard.counted_busy_ = true;
  }
  std::int64_t left = activity_.load(std::memory_order_acquire);
  if (ran != 0) left = activity_.fetch_sub(ran, std::memory_order_acq_rel) - ran;
  if (quiet && shard.counted_busy_) {
    left = activity_.fetch_sub(1, std::memory_order_acq_rel) - 1;
    shard.counted_busy_ = false;
  }
  if (left == 0 && quiet) finish();
}

void ShardSet::finish() noexcept {
  if (finished_.exchange(true, std::memory_order_acq_rel)) return;
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
  shard.counted_busy_ = false;
  loop.count_messages(&shard.set_->activity_);
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

void ShardHost::after_turn(void* self) noexcept {
  auto* host = static_cast<ShardHost*>(self);
  host->shard_.set_->account(host->shard_);
  IoOp* op = host->finish_op_;
  if (op != nullptr && host->finished() && op->state_ == detail::OpState::remote) host->loop_.fulfil(*op, 0);
}

}  // namespace duet
