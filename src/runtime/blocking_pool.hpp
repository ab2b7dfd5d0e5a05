// duet::BlockingPool — a bounded set of threads for blocking work
// (getaddrinfo, file I/O on epoll, CPU-heavy parsing), so it never runs on a
// loop's thread. Loop-independent: anything may hand it a PoolJob; the voices'
// offload (task/offload.hpp, stackful/offload.hpp) wrap it.
//
// Contract
// - A PoolJob is intrusive (it lives in the waiting task's frame or fiber's
//   stack); the pool never allocates, copies or frees one. run_(job) runs fn
//   on a pool thread; then done_(job, res) runs there with res 0; done_ is the
//   pool's last touch of the job.
// - submit(job, wait_for_room), any thread: the job enters the queue (at most
//   options.queue_capacity jobs wait there). When the queue is full it waits
//   for room in a FIFO of its own (wait_for_room: back-pressure, the caller
//   stays suspended) or is refused: submit returns false and the pool never
//   touches it (also after shutdown).
// - cancel(job), any thread: a job not yet started leaves, never runs, and
//   done_(job, -ECANCELED) runs at once on the cancelling thread; returns
//   false (and does nothing) once the job has started or finished.
// - shutdown() (also the destructor): no new jobs; queued and waiting jobs
//   are cancelled as above; running ones finish; the threads are joined. Not
//   from a pool thread.
// - default_blocking_pool(): one per process, made on first use (threads:
//   max(2, hardware threads), queue 1024), shut down at exit.
//
//   job.run_ = ...; job.done_ = ...;    // see task/offload.hpp
//   if (!pool.submit(job, true)) fail();
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace duet {

struct PoolJob {
  enum class State : unsigned char { idle, waiting, queued, running, finished };
  PoolJob* next_ = nullptr;
  void (*run_)(PoolJob* job) noexcept = nullptr;
  void (*done_)(PoolJob* job, int res) noexcept = nullptr;
  State state_ = State::idle;  // the pool's, under its mutex
};

// What offload does when the pool's queue is full: wait for room (the
// caller stays suspended: back-pressure) or fail at once.
enum class WhenFull : unsigned char { wait, fail };

struct BlockingPoolOptions {
  std::size_t threads = 4;
  std::size_t queue_capacity = 1024;
};

class BlockingPool {
 public:
  explicit BlockingPool(BlockingPoolOptions options = {});
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;
  BlockingPool(BlockingPool&&) = delete;
  BlockingPool& operator=(BlockingPool&&) = delete;
  ~BlockingPool();

  bool submit(PoolJob& job, bool wait_for_room);
  bool cancel(PoolJob& job) noexcept;
  void shutdown() noexcept;

  // Snapshots, any thread (for tests).
  [[nodiscard]] std::size_t queued() const;
  [[nodiscard]] std::size_t waiting_for_room() const;
  [[nodiscard]] std::size_t thread_count() const noexcept { return threads_.size(); }

 private:
  // An intrusive FIFO through PoolJob::next_.
  struct Fifo {
    PoolJob* head = nullptr;
    PoolJob* tail = nullptr;
    std::size_t size = 0;
    void push(PoolJob& job) noexcept;
    PoolJob* pop() noexcept;
    bool remove(PoolJob& job) noexcept;
  };

  void work() noexcept;
  PoolJob* next_job();

  BlockingPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable has_work_;
  Fifo queue_;
  Fifo waiting_;
  bool closed_ = false;
  std::vector<std::thread> threads_;
};

BlockingPool& default_blocking_pool();

}  // namespace duet
