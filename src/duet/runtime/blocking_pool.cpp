// BlockingPool: one mutex over two intrusive FIFOs (the bounded queue, and the
// jobs waiting for room in it), the list of live workers, and two condition
// variables. A lock is fine here: the pool's threads block by design, and a
// loop thread holds the mutex only to link or unlink one job.
//
// Who owns a job (every state change happens under the mutex):
// - queued/waiting: the queue. Whoever unlinks it under the mutex owns it
//   from then on and is the only one who may call its done_: a worker (state
//   running, done_ 0 after run_), cancel (done_ -ECANCELED at once) or
//   shutdown (state detached: it unlinks the whole queue at once and answers
//   each job -ECANCELED after unlocking).
// - A cancel that finds the job running or detached does not touch it beyond
//   that look under the mutex (and, for running may_block_ jobs, the worker's
//   interrupt): its owner's done_ is on the way. The job's memory is safe for
//   that look because the caller of cancel keeps it alive until its call
//   returns (see the header), and for the owner's done_ because done_ comes
//   before the free. Shutdown reads a detached job's next_ before its done_.
//
// Growth: `threads` workers from the start; live_ - blocked_ is the number
// not stuck in a may_block_ job, kept at `threads` when one starts (up to
// max_threads), and workers above it retire after keep_alive idle. Workers
// are detached threads: shutdown waits on all_gone_ for live_ == 0, and a
// worker's last touch of the pool is that notify, under the mutex.
#include "duet/runtime/blocking_pool.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <thread>

#include "duet/io/sim_world.hpp"
#include "duet/runtime/detail/thread_interrupt.hpp"

namespace duet {

namespace detail {
// A worker, on its own thread's stack.
struct PoolWorker {
  PoolWorker* prev = nullptr;
  PoolWorker* next = nullptr;
  PoolJob* job = nullptr;  // running (under the pool's mutex)
  ThreadInterrupt interrupt;
};
}  // namespace detail

namespace {
constexpr auto keep_alive = std::chrono::seconds(2);
thread_local const BlockingPool* t_pool = nullptr;  // the pool whose worker this thread is
}  // namespace

using detail::PoolWorker;

void BlockingPool::Fifo::push(PoolJob& job) noexcept {
  job.next_ = nullptr;
  (tail != nullptr ? tail->next_ : head) = &job;
  tail = &job;
  ++size;
}

PoolJob* BlockingPool::Fifo::pop() noexcept {
  PoolJob* job = head;
  if (job == nullptr) return nullptr;
  head = job->next_;
  if (head == nullptr) tail = nullptr;
  --size;
  return job;
}

bool BlockingPool::Fifo::remove(PoolJob& job) noexcept {
  PoolJob* prev = nullptr;
  for (PoolJob* p = head; p != nullptr; prev = p, p = p->next_) {
    if (p != &job) continue;
    (prev != nullptr ? prev->next_ : head) = p->next_;
    if (tail == p) tail = prev;
    --size;
    return true;
  }
  return false;
}

BlockingPool::BlockingPool(BlockingPoolOptions options) : options_(options) {
  options_.threads = std::max<std::size_t>(options_.threads, 1);
  options_.queue_capacity = std::max<std::size_t>(options_.queue_capacity, 1);
  options_.max_threads = std::max(options_.max_threads, options_.threads);
  for (std::size_t i = 0; i < options_.threads; ++i) {
    {
      std::lock_guard lock(mutex_);
      ++live_;
    }
    if (!spawn_worker()) {
      shutdown();
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                              "duet: BlockingPool could not start its threads");
    }
  }
}

BlockingPool::~BlockingPool() { shutdown(); }

int BlockingPool::interrupt_signal() noexcept { return detail::ThreadInterrupt::signal(); }

// Starts a worker already counted in live_; on failure uncounts it.
bool BlockingPool::spawn_worker() noexcept {
  try {
    std::thread([this] { work(); }).detach();
    return true;
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (--live_ == 0) all_gone_.notify_all();
    return false;
  }
}

bool BlockingPool::submit(PoolJob& job, bool wait_for_room) {
  if (SimWorld* world = SimWorld::current()) return submit_simulated(*world, job);
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    job.stop_requested_.store(false, std::memory_order_relaxed);
    if (queue_.size < options_.queue_capacity) {
      job.state_ = PoolJob::State::queued;
      queue_.push(job);
    } else if (wait_for_room) {
      job.state_ = PoolJob::State::waiting;
      waiting_.push(job);
      return true;
    } else {
      return false;
    }
  }
  has_work_.notify_one();
  return true;
}

// Under simulation a job is simulated work: it runs on the world's thread
// when the seed says, not on a pool thread (which would escape the seed).
// It is queued (in simulated_) until then, so cancel and shutdown find it.
bool BlockingPool::submit_simulated(SimWorld& world, PoolJob& job) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    job.stop_requested_.store(false, std::memory_order_relaxed);
    job.state_ = PoolJob::State::queued;
    simulated_.push(job);
  }
  world.post_work(&job, [this, &job] {
    {
      std::lock_guard lock(mutex_);
      simulated_.remove(job);
      job.state_ = PoolJob::State::running;
    }
    job.run_(&job);
    {
      std::lock_guard lock(mutex_);
      job.state_ = PoolJob::State::finished;
    }
    job.done_(&job, 0);
  });
  return true;
}

// The room a job left in the queue goes to the oldest one waiting for it.
void BlockingPool::admit_waiting() noexcept {
  if (PoolJob* next = waiting_.pop()) {
    next->state_ = PoolJob::State::queued;
    queue_.push(*next);
  }
}

// Under the mutex, the job running: ask it to stop, and interrupt its syscall.
void BlockingPool::stop_running(PoolJob& job) noexcept {
  if (!job.may_block_) return;  // it runs to its end
  job.stop_requested_.store(true, std::memory_order_release);
  job.worker_->interrupt.arm();
}

bool BlockingPool::cancel(PoolJob& job) noexcept {
  {
    std::lock_guard lock(mutex_);
    switch (job.state_) {
      case PoolJob::State::queued:
        if (!queue_.remove(job)) {  // simulated work that has not run
          simulated_.remove(job);
          if (SimWorld* world = SimWorld::current()) world->cancel_work(&job);
          break;
        }
        admit_waiting();
        break;
      case PoolJob::State::waiting:
        waiting_.remove(job);
        break;
      case PoolJob::State::running:
        stop_running(job);
        return false;
      default:  // detached (shutdown answers it), finished or never submitted
        return false;
    }
    job.state_ = PoolJob::State::finished;
  }
  job.done_(&job, -ECANCELED);  // ours alone now: unlinked under the mutex
  return true;
}

// Under the lock: the oldest queued job, or null when the worker should go
// (the pool closed, or this worker is one too many and has idled keep_alive).
PoolJob* BlockingPool::next_job(std::unique_lock<std::mutex>& lock, PoolWorker& self) {
  for (;;) {
    if (closed_) return nullptr;
    if (queue_.size != 0) break;
    if (live_ - blocked_ > options_.threads) {
      if (!has_work_.wait_for(lock, keep_alive, [&] { return queue_.size != 0 || closed_; })) return nullptr;
    } else {
      has_work_.wait(lock, [&] { return queue_.size != 0 || closed_; });
    }
  }
  PoolJob* job = queue_.pop();
  job->state_ = PoolJob::State::running;
  job->worker_ = &self;
  self.job = job;
  admit_waiting();
  return job;
}

// Runs one job (entered and left under the lock, which is dropped meanwhile).
void BlockingPool::run_job(std::unique_lock<std::mutex>& lock, PoolWorker& self, PoolJob& job) noexcept {
  const bool may_block = job.may_block_;
  bool spawn = false;
  if (may_block) {
    ++blocked_;
    spawn = live_ - blocked_ < options_.threads && live_ < options_.max_threads;
    if (spawn) ++live_;
  }
  lock.unlock();
  if (spawn) spawn_worker();  // so `threads` workers stay free of stuck calls
  if (may_block) self.interrupt.allow();
  job.run_(&job);
  if (may_block) self.interrupt.block();
  lock.lock();
  job.state_ = PoolJob::State::finished;  // no cancel arms the interrupt from here on
  self.job = nullptr;
  if (may_block) --blocked_;
  lock.unlock();
  self.interrupt.disarm();  // nothing of the stop reaches the next job
  job.done_(&job, 0);       // the last touch: the waiter may free the job now
  lock.lock();
}

void BlockingPool::work() noexcept {
  PoolWorker self;
  t_pool = this;
  std::unique_lock lock(mutex_);
  self.next = workers_;
  if (workers_ != nullptr) workers_->prev = &self;
  workers_ = &self;
  while (PoolJob* job = next_job(lock, self)) run_job(lock, self, *job);
  (self.prev != nullptr ? self.prev->next : workers_) = self.next;
  if (self.next != nullptr) self.next->prev = self.prev;
  if (--live_ == 0) all_gone_.notify_all();  // the last touch of the pool (under its mutex)
}

// Detaches every job not started and answers each; interrupts running
// may_block_ jobs; waits until every worker is gone.
void BlockingPool::shutdown() noexcept {
  Fifo detached;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    SimWorld* world = SimWorld::current();
    for (Fifo* fifo : {&queue_, &waiting_, &simulated_}) {
      while (PoolJob* job = fifo->pop()) {
        if (world != nullptr && fifo == &simulated_) world->cancel_work(job);
        job->state_ = PoolJob::State::detached;
        detached.push(*job);
      }
    }
    for (PoolWorker* w = workers_; w != nullptr; w = w->next) {
      if (w->job != nullptr) stop_running(*w->job);
    }
  }
  has_work_.notify_all();
  while (PoolJob* job = detached.pop()) job->done_(job, -ECANCELED);  // pop reads next_ before the free
  // A shutdown on one of our own workers (exit() from a job) waits for the others.
  const std::size_t self = t_pool == this ? 1 : 0;
  std::unique_lock lock(mutex_);
  all_gone_.wait(lock, [&] { return live_ == self; });
}

std::size_t BlockingPool::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size;
}

std::size_t BlockingPool::waiting_for_room() const {
  std::lock_guard lock(mutex_);
  return waiting_.size;
}

std::size_t BlockingPool::thread_count() const {
  std::lock_guard lock(mutex_);
  return live_;
}

BlockingPool& default_blocking_pool() {
  static BlockingPool pool({.threads = std::max(2u, std::thread::hardware_concurrency()), .queue_capacity = 1024});
  return pool;
}

}  // namespace duet
