// duet::BlockingPool — a bounded set of threads for blocking work
// (getaddrinfo, file I/O on epoll, CPU-heavy parsing), so it never runs on a
// loop's thread. Loop-independent: anything may hand it a PoolJob; the voices'
// offload (task/offload.hpp, stackful/offload.hpp) wrap it.
//
// Contract
// - A PoolJob is intrusive (it lives in the waiting task's frame or fiber's
//   stack); the pool never allocates, copies or frees one. run_(job) runs fn
//   on a pool thread; then done_(job, res) runs there with res 0; done_ is the
//   pool's last touch of the job, whoever calls it (a worker, a cancel, a
//   shutdown), and it is called exactly once for every job submit accepted.
// - submit(job, wait_for_room), any thread: the job enters the queue (at most
//   options.queue_capacity jobs wait there). When the queue is full it waits
//   for room in a FIFO of its own (wait_for_room: back-pressure, the caller
//   stays suspended) or is refused: submit returns false and the pool never
//   touches it (also after shutdown).
// - cancel(job), any thread: a job not yet started leaves, never runs, and
//   done_(job, -ECANCELED) runs at once on the cancelling thread: returns true.
//   Otherwise returns false and done_ comes from whoever owns the job now (its
//   worker, or a shutdown that took the queue); a running may_block_ job is
//   interrupted (below) first. A job may be freed once done_ has run AND every
//   cancel call on it has returned.
// - may_block_ (the owner sets it before submit): run_ is one syscall that may
//   wait without bound (a FIFO, a terminal, a stuck NFS server). Such a job
//   (1) can be stopped while it runs: cancel (and shutdown) send the worker
//   interrupt_signal() (a no-op handler without SA_RESTART, so the syscall
//   fails with EINTR), again every few milliseconds until run_ returns, as a
//   signal sent just before the syscall begins is otherwise lost; run_ sees
//   stop_requested() and reports ECANCELED. This is what io_uring does to its
//   own io-wq workers. (2) does not hold one of options.threads while it
//   runs: the worker starting it starts another thread first if fewer than
//   `threads` workers would be left that are not blocked (up to
//   options.max_threads in all), so stuck calls never starve the rest;
//   workers beyond that exit after a few seconds idle.
// - shutdown() (also the destructor): no new jobs; queued and waiting jobs
//   are cancelled as above (done_ -ECANCELED on the shutting-down thread);
//   running may_block_ jobs are interrupted; all running ones finish; the
//   threads are gone when it returns. Not from a pool thread.
// - Under simulation (a SimWorld installed on the submitting thread, see
//   io/sim_world.hpp) a job runs as the world's simulated work: on the
//   world's thread, after a seeded delay, never on a pool thread; cancel and
//   shutdown (on that thread) treat it as queued until it starts.
// - default_blocking_pool(): one per process, made on first use (threads:
//   max(2, hardware threads), queue 1024), shut down at exit.
//
//   job.run_ = ...; job.done_ = ...;    // see task/offload.hpp
//   if (!pool.submit(job, true)) fail();
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace duet {

class SimWorld;

namespace detail {
struct PoolWorker;
}

struct PoolJob {
  enum class State : unsigned char { idle, waiting, queued, running, detached, finished };
  PoolJob* next_ = nullptr;
  void (*run_)(PoolJob* job) noexcept = nullptr;
  void (*done_)(PoolJob* job, int res) noexcept = nullptr;
  bool may_block_ = false;  // the owner's, before submit (see the contract)
  State state_ = State::idle;                  // the pool's, under its mutex
  detail::PoolWorker* worker_ = nullptr;       // the pool's: who runs it (state running)
  std::atomic<bool> stop_requested_{false};    // set by a cancel while it runs

  // For run_: a cancel or a shutdown came while the job ran (its EINTR is ours).
  [[nodiscard]] bool stop_requested() const noexcept { return stop_requested_.load(std::memory_order_acquire); }
};

// What offload does when the pool's queue is full: wait for room (the
// caller stays suspended: back-pressure) or fail at once.
enum class WhenFull : unsigned char { wait, fail };

struct BlockingPoolOptions {
  std::size_t threads = 4;         // workers for jobs that do not block without bound
  std::size_t queue_capacity = 1024;
  std::size_t max_threads = 64;    // all workers, blocked ones included (at least threads)
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

  // The signal that interrupts a running may_block_ job (a real-time one,
  // SIGRTMIN + 6; delivered only to the pool's own threads, which block it
  // except while such a job runs). Its no-op handler is installed by the first
  // pool made.
  [[nodiscard]] static int interrupt_signal() noexcept;

  // Snapshots, any thread (for tests).
  [[nodiscard]] std::size_t queued() const;
  [[nodiscard]] std::size_t waiting_for_room() const;
  [[nodiscard]] std::size_t thread_count() const;

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

  bool submit_simulated(SimWorld& world, PoolJob& job);
  bool spawn_worker() noexcept;
  void work() noexcept;
  PoolJob* next_job(std::unique_lock<std::mutex>& lock, detail::PoolWorker& self);
  void run_job(std::unique_lock<std::mutex>& lock, detail::PoolWorker& self, PoolJob& job) noexcept;
  void admit_waiting() noexcept;
  void stop_running(PoolJob& job) noexcept;

  BlockingPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable has_work_;
  std::condition_variable all_gone_;
  Fifo queue_;
  Fifo waiting_;
  Fifo simulated_;  // queued as a SimWorld's work
  detail::PoolWorker* workers_ = nullptr;  // every live worker, for shutdown's interrupts
  std::size_t live_ = 0;                   // workers started and not yet gone
  std::size_t blocked_ = 0;                // of them, running a may_block_ job
  bool closed_ = false;
};

BlockingPool& default_blocking_pool();

}  // namespace duet
