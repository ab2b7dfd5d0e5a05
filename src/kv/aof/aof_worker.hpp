// duet::kv::AofWorker — a background thread for the file calls that would stall
// the event loop: fdatasync, and the rewrite's temp-file writes, fsync, rename.
//
// Contract
// - post(job, done): job runs on the worker thread, jobs in FIFO order; its
//   result (0 or -errno) comes back to done on the loop thread, delivered by the
//   loop itself: the worker writes an eventfd and a read IoOp on that eventfd
//   (OpKind::read, the same on io_uring and epoll) wakes the loop. No polling.
// - Why a thread: duet's IoOp has no fsync kind yet (src/duet/io), and fsync on a
//   regular file cannot be made non-blocking; io_uring's IORING_OP_FSYNC would
//   replace the thread on that backend once OpKind::fsync exists.
// - drain(): runs every queued job to the end, joins the thread and calls their
//   done callbacks on the calling thread, then releases the eventfd op (the loop
//   must still be alive). Call it once, before destruction, on the loop thread.
// - Under simulation (a SimWorld on the loop's thread) there is no thread and
//   no eventfd: each job is the world's simulated work (SimWorld::post_work),
//   one at a time in FIFO order, and its done comes back as a completion.
// - Loop thread only, except what the worker thread itself runs.
//
//   AofWorker worker(loop);
//   worker.post([fd] { return ::fdatasync(fd) == 0 ? 0 : -errno; },
//               [&](int res) { if (res == 0) durable = written; });
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "duet/io/event_loop.hpp"
#include "duet/io/unique_fd.hpp"

namespace duet {
class SimWorld;
}

namespace duet::kv {

class AofWorker {
 public:
  using Job = std::function<int()>;
  using Done = std::function<void(int)>;

  explicit AofWorker(EventLoop& loop);
  AofWorker(const AofWorker&) = delete;
  AofWorker& operator=(const AofWorker&) = delete;
  AofWorker(AofWorker&&) = delete;
  AofWorker& operator=(AofWorker&&) = delete;
  ~AofWorker();

  void post(Job job, Done done);
  [[nodiscard]] std::size_t outstanding() const noexcept { return outstanding_; }
  void drain();

 private:
  struct Item {
    Job job;
    Done done;
    int result = 0;
  };

  static void on_wake(IoOp* op, int res) noexcept;
  void arm();
  void deliver();
  void run();
  void run_next_simulated();

  EventLoop& loop_;
  SimWorld* sim_;             // non-null: simulated, no thread
  bool sim_running_ = false;  // a job is posted to the world
  UniqueFd event_fd_;
  IoOp wake_op_;
  std::uint64_t wake_value_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Item> queued_;    // waiting for the thread
  std::deque<Item> finished_;  // results waiting for the loop
  std::size_t outstanding_ = 0;  // loop-side count: posted, not yet delivered
  bool stopping_ = false;
  bool drained_ = false;
  std::thread thread_;
};

}  // namespace duet::kv
