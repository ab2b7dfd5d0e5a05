// duet::SimWorld — a deterministic simulation of the machine under an
// EventLoop of Backend::sim: a virtual clock, an in-memory network, and a
// seeded scheduler that decides every order, latency, split and fault.
//
// Contract
// - Construct one on a thread, then EventLoops with Backend::sim on that
//   thread: they run their ops against this world. Installing it makes
//   duet::now() (io/clock.hpp) the virtual clock and routes socket calls
//   (io/sys.hpp) and file calls (File, sys::open ...) to the simulated
//   network and file system for the world's lifetime. One world
//   per thread at a time (a second throws std::logic_error); it must outlive
//   its loops. An EventLoop(Backend::sim) on a thread without a world makes
//   one of its own, with SimOptions{}.
// - Virtual time moves only when a loop's turn would wait: straight to the
//   next event (a timer, a timeout, bytes arriving), so an hour of simulated
//   sleep takes no real time.
// - The same seed and the same program give the same run, completion for
//   completion: trace_hash() folds every completion delivered (virtual time,
//   op kind, result, bytes moved) into one number to compare runs by.
// - Faults fire at the rates of SimOptions; all default to what TCP itself
//   may do (short transfers, latency, a late wake-up), none to failures.
// - A turn that could only wait forever (no timer, nothing in transit, no op
//   that can finish) is a deadlock of the program under test: the world calls
//   its deadlock handler (default: a message with the seed on stderr, then
//   abort; set_deadlock_handler to report it your way first — the handler
//   does not return: it exits, or the world aborts after it).
// - The world's thread only — or, for a ShardSet's shards under simulation,
//   whichever of threads() holds the baton (one at a time, handed over under
//   a mutex: detail/sim_threads.hpp).
//
//   duet::SimWorld world({.seed = 42});
//   duet::EventLoop loop(duet::Backend::sim);
//   ... run a server and its clients as tasks or fibers on loop ...
//   std::printf("%016llx\n", (unsigned long long)world.trace_hash());
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace duet {

namespace detail {
class SimFs;
class SimNet;
class SimThreads;
}

struct SimOptions {
  std::uint64_t seed = 1;
  // One-way latency of each segment (and of a connection's handshake),
  // drawn uniformly from this range.
  std::chrono::nanoseconds min_latency{std::chrono::microseconds(5)};
  std::chrono::nanoseconds max_latency{std::chrono::microseconds(200)};
  // When > 0, latencies are whole multiples of it: events then fall on a
  // coarse grid and often happen at the same virtual instant, where the
  // seed orders them — that is where races between completions live.
  std::chrono::nanoseconds latency_quantum{0};
  // Bytes one direction of a connection holds (in transit and unread) before
  // send waits: drawn per connection from this range (backpressure).
  std::size_t min_window = 4 * 1024;
  std::size_t max_window = 256 * 1024;
  // Probabilities, per transfer or per ready completion:
  double short_transfer = 0.2;  // a send or recv moves fewer bytes than it could
  double late_wakeup = 0.05;    // a completion that is ready waits a turn (a reactor's EAGAIN)
  double reset = 0.0;           // the connection is reset: ECONNRESET on both ends
  double refuse = 0.0;          // a connect to a listener is refused
  double enospc = 0.0;          // a file write fails with ENOSPC
  double eintr = 0.0;           // a file read or write op fails with EINTR (a signal came; the caller retries)
  double fsync_eio = 0.0;       // an fsync fails with EIO, and the file's unsynced bytes are gone
  // Threads under one world (a ShardSet's shards): a loop whose turn did
  // something hands the baton to another thread after it with this
  // probability (an idle one always does). Lower: fewer switches between
  // the real threads, each a futex hand-off (a few µs of system CPU).
  double switch_after_busy = 0.25;
  // An fsync op completes after a delay drawn from [0, this] (a slow disk).
  std::chrono::nanoseconds max_fsync_delay{std::chrono::microseconds(500)};
  // Work handed to another thread (a BlockingPool job, the KV server's AOF
  // worker) runs on the world's thread instead, after a delay drawn from
  // [0, this], in a seeded order with everything else.
  std::chrono::nanoseconds max_work_delay{std::chrono::microseconds(300)};
  // For tests of the simulator itself: defects fixed earlier, put back while
  // this world runs (comma-separated names, see sim_defects in
  // sim_world.cpp; an unknown name throws std::invalid_argument).
  std::string defects{};
};

// True when the SimWorld installed on this thread re-introduces `defect`.
// The fixed code asks only on the rare path the defect lived on.
[[nodiscard]] bool sim_reintroduces(std::string_view defect) noexcept;

class SimWorld {
 public:
  using Clock = std::chrono::steady_clock;
  using DeadlockHandler = void (*)(SimWorld& world, void* context);
  // Simulated descriptors are numbered from here up (real ones stay below
  // the fd limit, 20,000 here).
  static constexpr int first_fd = 1 << 24;

  explicit SimWorld(SimOptions options = {});
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;
  SimWorld(SimWorld&&) = delete;
  SimWorld& operator=(SimWorld&&) = delete;
  ~SimWorld();

  // The world installed on this thread, or null.
  [[nodiscard]] static SimWorld* current() noexcept;

  [[nodiscard]] Clock::time_point now() const noexcept { return now_; }
  // Virtual time since the world began.
  [[nodiscard]] Clock::duration elapsed() const noexcept;
  [[nodiscard]] const SimOptions& options() const noexcept { return options_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return options_.seed; }
  [[nodiscard]] std::uint64_t trace_hash() const noexcept { return trace_; }
  // Completions delivered so far.
  [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }
  void set_deadlock_handler(DeadlockHandler handler, void* context) noexcept {
    on_deadlock_ = handler;
    deadlock_context_ = context;
  }

  // For the simulation's parts (and a test's own seeded choices).
  std::uint64_t random() noexcept;
  [[nodiscard]] bool chance(double p) noexcept;
  [[nodiscard]] std::uint64_t below(std::uint64_t n) noexcept;  // uniform in [0, n), n > 0
  [[nodiscard]] Clock::duration latency() noexcept;
  void trace(std::uint64_t word) noexcept;
  void trace_bytes(const void* data, std::size_t len) noexcept;
  void count_step() noexcept { ++steps_; }
  void advance_to(Clock::time_point t) noexcept {
    if (t > now_) now_ = t;
  }
  [[noreturn]] void deadlock() noexcept;
  [[nodiscard]] detail::SimNet& net() noexcept { return *net_; }
  // Several threads under this world, one running at a time
  // (detail/sim_threads: a ShardSet's shards under simulation).
  [[nodiscard]] detail::SimThreads& threads() noexcept { return *threads_; }
  // Makes this world the current one on the calling thread too (a thread
  // the world runs, see threads()).
  void install_on_this_thread() noexcept;
  [[nodiscard]] detail::SimFs& fs() noexcept { return *fs_; }
  // The simulated process dies, as under kill -9 or a power cut: the files
  // keep only what was fsynced (with torn_tail, a file that grew by appends
  // may keep part of its unsynced tail) and every connection is reset (both
  // ends see ECONNRESET). The dead process's code is its owner's to wind
  // down (stop its loop); until restart() nothing it does reaches the disk
  // (see detail::SimFs). Sockets are still the owner's to close.
  void crash(bool torn_tail = false);
  // A new process begins (after a crash): file calls act on the disk again.
  void restart() noexcept;

  // Simulated work (what another thread would do): fn runs on the posting
  // thread from a loop's turn, after a seeded delay of up to
  // SimOptions::max_work_delay, in a seeded order among the work due at
  // once. key names it for cancel_work (null: not cancellable); true if it
  // had not started and never will.
  void post_work(const void* key, std::function<void()> fn);
  bool cancel_work(const void* key) noexcept;
  // For SimPoller: runs the work due now (true if any), and when the next is.
  bool run_due_work();
  [[nodiscard]] std::optional<Clock::time_point> next_work() const noexcept;
  // A test's control connection (fd: either end, connected): no fault is
  // injected on it (SimOptions::reset), though a crash still resets it.
  // 0, or -EBADF / -ENOTCONN.
  int spare_from_faults(int fd);
  // Simulated sockets open now (a leak check once every owner is gone).
  [[nodiscard]] std::size_t open_sockets() const noexcept;

 private:
  SimOptions options_;
  Clock::time_point start_;
  Clock::time_point now_;
  std::uint64_t rng_[4];
  std::uint64_t trace_;
  std::uint64_t steps_ = 0;
  struct Work {
    Clock::time_point due;
    const void* key;
    std::function<void()> fn;
    std::size_t thread;  // the simulated thread that posted it, and runs it
  };
  std::vector<Work> work_;  // in posting order
  std::unique_ptr<detail::SimNet> net_;
  std::unique_ptr<detail::SimFs> fs_;
  std::unique_ptr<detail::SimThreads> threads_;
  DeadlockHandler on_deadlock_ = nullptr;
  void* deadlock_context_ = nullptr;
};

}  // namespace duet
