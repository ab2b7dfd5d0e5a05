// duet::ShardSet — N threads, one EventLoop each: the thread-per-core model.
//
// Contract
// - The constructor starts options.shards threads (with calling_thread, the
//   calling thread is shard 0 and the constructor starts the others), each
//   pinned to cpus[i % cpus.size()] when cpus is not empty, each running the
//   runner's loop (ShardRunner: plain loops, or fiber schedulers); it returns
//   once every started shard's loop exists, or throws the first failure
//   (std::system_error: no ring, no pinning) after stopping the rest. With
//   calling_thread and cpus, run() pins the calling thread too (for good).
// - Shards talk only by message: shard(i).post(fn) / send(msg) from any
//   thread (shard.hpp); task/on_shard.hpp and stackful/on_shard.hpp build
//   calls with results on it.
// - Stopping: request_stop() (any thread, idempotent) stops every shard's
//   stop_token on its own thread; each shard then keeps turning until all of
//   them are quiet at the same time (no op in flight, no message unrun: work
//   already started drains, and work that watches the token ends early), and
//   only then does any thread leave, so no message can reach a dead loop.
//   Sending new work to the set from outside after request_stop is a bug.
// - join() (any thread but a shard's) waits for the threads and rethrows the
//   first exception that escaped a shard's work (a posted fn, a runner, a
//   detached fiber); stop() is request_stop() + join(). run(main) is for
//   calling_thread sets: hosts shard 0 here, posts main to it, returns (or
//   rethrows) after the set has stopped and joined. The destructor stops and
//   joins; an error nobody collected is printed to stderr.
//
//   duet::ShardSet set({.shards = 4, .backend = duet::Backend::io_uring, .cpus = {0, 1, 2, 3}});
//   set.shard(2).post([] { work(); });
//   set.stop();                            // drains, joins, rethrows
//
// - Backend::sim: the calling thread must have a SimWorld (io/sim_world.hpp).
//   The shards are still threads (so thread-locals and fiber schedulers work
//   unchanged) but they run one at a time, taking turns where the world's
//   seed says (detail/sim_threads.hpp): a set replays like a single loop.
//   cpus are ignored.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "duet/io/backend.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/runtime/shard.hpp"
#include "duet/runtime/shard_runner.hpp"

namespace duet {

class SimWorld;

struct ShardSetOptions {
  std::size_t shards = 1;
  Backend backend = Backend::io_uring;
  // Each shard's loop. A shard awaiting an answer from another (on(),
  // fiber::on, offload) spins up to 20 µs for it before it sleeps
  // (LoopOptions::reply_spin), as thread-per-core runtimes do (seastar
  // polls, helio spins): the answer then costs no wake-up, and a round trip
  // between awake shards takes a few µs instead of two wake-ups. A shard
  // that awaits nothing sleeps at once. {.reply_spin = {}}: never spin.
  LoopOptions loop = {.reply_spin = std::chrono::microseconds(20)};
  std::vector<int> cpus = {};   // shard i runs on cpus[i % size]; empty: not pinned
  bool calling_thread = false;  // shard 0 is the calling thread (see run)
};

class ShardSet {
 public:
  explicit ShardSet(ShardSetOptions options = {}, ShardRunner& runner = loop_runner());
  ShardSet(const ShardSet&) = delete;
  ShardSet& operator=(const ShardSet&) = delete;
  ShardSet(ShardSet&&) = delete;
  ShardSet& operator=(ShardSet&&) = delete;
  ~ShardSet();

  [[nodiscard]] std::size_t size() const noexcept { return shards_.size(); }
  [[nodiscard]] Shard& shard(std::size_t i) const noexcept { return *shards_[i]; }
  [[nodiscard]] const ShardSetOptions& options() const noexcept { return options_; }

  void request_stop() noexcept;
  void join();
  void stop() {
    request_stop();
    join();
  }
  void run(std::function<void()> main);

 private:
  friend class Shard;
  friend struct ShardHost;

  void start_threads(std::size_t first);
  void thread_main(Shard& shard);
  void attached(Shard& shard);
  void record_error(std::exception_ptr error) noexcept;
  void enlist_and_stop(Shard& shard) noexcept;
  void send_stop(Shard& shard) noexcept;
  void account(Shard& shard) noexcept;
  void enroll(Shard& shard, bool quiet) noexcept;
  void try_finish() noexcept;
  void finish() noexcept;

  ShardSetOptions options_;
  ShardRunner& runner_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<std::thread> threads_;
  SimWorld* sim_ = nullptr;            // Backend::sim: the world whose baton the threads share
  std::vector<std::size_t> sim_ids_;   // each thread's number under it
  // The stop's termination count (shard_set.cpp): unrun messages to any
  // shard, plus one per stopping shard not yet enrolled or not quiet, once
  // every stopped shard has enrolled (unenrolled_ == 0). Until the stop only
  // threads that are not shards write it (a send from one of them).
  alignas(64) std::atomic<std::int64_t> activity_{0};
  std::atomic<std::int64_t> unenrolled_{0};
  alignas(64) std::atomic<bool> stopping_{false};
  std::atomic<bool> finished_{false};
  std::mutex mutex_;  // guards the fields below
  std::condition_variable cv_;
  std::size_t attached_ = 0;
  std::size_t exited_ = 0;
  std::exception_ptr error_;
  std::function<void()> main_;  // run(main): posted to shard 0 once it is up
};

}  // namespace duet
