// BlockingPool: one mutex over two intrusive FIFOs (the bounded queue, and the
// jobs waiting for room in it) and a condition variable for the workers. A
// lock is fine here: the pool's threads block by design, and a loop thread
// holds the mutex only to link or unlink one job. Every state change of a job
// happens under the mutex, which is what makes cancel-or-run exclusive.
#include "runtime/blocking_pool.hpp"

#include <algorithm>
#include <cerrno>

namespace duet {

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
  threads_.reserve(options_.threads);
  try {
    for (std::size_t i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { work(); });
  } catch (...) {
    shutdown();
    throw;
  }
}

BlockingPool::~BlockingPool() { shutdown(); }

bool BlockingPool::submit(PoolJob& job, bool wait_for_room) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
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

bool BlockingPool::cancel(PoolJob& job) noexcept {
  {
    std::lock_guard lock(mutex_);
    if (job.state_ == PoolJob::State::queued) {
      queue_.remove(job);
      if (PoolJob* next = waiting_.pop()) {  // its room goes to the next in line
        next->state_ = PoolJob::State::queued;
        queue_.push(*next);
      }
    } else if (job.state_ == PoolJob::State::waiting) {
      waiting_.remove(job);
    } else {
      return false;
    }
    job.state_ = PoolJob::State::finished;
  }
  job.done_(&job, -ECANCELED);
  return true;
}

// Takes the oldest queued job and lets the oldest waiting one into the queue.
PoolJob* BlockingPool::next_job() {
  std::unique_lock lock(mutex_);
  has_work_.wait(lock, [&] { return queue_.size != 0 || closed_; });
  if (closed_) return nullptr;  // shutdown cancels what is left
  PoolJob* job = queue_.pop();
  job->state_ = PoolJob::State::running;
  if (PoolJob* next = waiting_.pop()) {
    next->state_ = PoolJob::State::queued;
    queue_.push(*next);
  }
  return job;
}

void BlockingPool::work() noexcept {
  while (PoolJob* job = next_job()) {
    job->run_(job);
    {
      std::lock_guard lock(mutex_);
      job->state_ = PoolJob::State::finished;
    }
    job->done_(job, 0);  // the last touch: the waiter may free the job now
  }
}

// Cancels whatever has not started; the workers drain nothing more and leave.
void BlockingPool::shutdown() noexcept {
  for (;;) {
    PoolJob* job = nullptr;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      job = queue_.head != nullptr ? queue_.head : waiting_.head;
    }
    if (job == nullptr) break;
    cancel(*job);
  }
  has_work_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  }
}

std::size_t BlockingPool::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size;
}

std::size_t BlockingPool::waiting_for_room() const {
  std::lock_guard lock(mutex_);
  return waiting_.size;
}

BlockingPool& default_blocking_pool() {
  static BlockingPool pool({.threads = std::max(2u, std::thread::hardware_concurrency()), .queue_capacity = 1024});
  return pool;
}

}  // namespace duet
