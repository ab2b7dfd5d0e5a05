// duet::fiber::Scheduler — one per thread: runs fibers and the I/O loop they block on.
//
// Contract
// - Construct one on a thread (a second one on the same thread throws
//   std::logic_error); it becomes Scheduler::current() there. Every member is
//   for that thread only. It owns an EventLoop on options.backend (io_uring or
//   epoll; the constructor throws std::system_error if that backend cannot be
//   had — catch it to fall back).
// - spawn(f, args...) copies/moves f and args onto a new fiber (a guarded,
//   pooled stack) and queues it READY; it starts at the next scheduling turn.
//   Returns Fiber<R> (R = what f returns). Throws std::system_error when no
//   stack can be had (see Stack), std::length_error if f is huge.
// - run(): turns until no fiber is left and no hold is taken, then rethrows
//   the first exception of a detached fiber. Stackless tasks may share the
//   loop (stackful/await_task.hpp, stackful/run_on_fiber.hpp), but a task's
//   own I/O does not keep run() going: a fiber that awaits the task does (or a
//   hold: run_on_fiber takes one until its task has its result). So a
//   long-lived op that is nobody's work (a worker's eventfd read) never keeps
//   run() from returning. A turn resumes the fibers that were READY when it began
//   (FIFO), then polls I/O: without blocking while anything is READY, blocking
//   until the next completion or deadline otherwise — so neither I/O nor timers
//   starve behind busy fibers. If every fiber waits and nothing can wake one
//   (the loop is idle: no op in flight, no message queued, no reply awaited
//   from another thread — EventLoop::idle), run throws std::logic_error
//   (deadlock) instead of hanging.
// - run(stop_source): the same, and it honours loop().stop() (from any thread,
//   or a signal handler: it is async-signal-safe), which run() ignores: the
//   stop request is consumed and turned into stop_source.request_stop() on
//   this thread, then run goes on until every fiber has finished (fibers that
//   pass the source's tokens to their calls see operation_canceled; stopping
//   is cooperative). For SIGINT/SIGTERM, a fiber::SignalSet is the simpler way
//   (stackful/signal_set.hpp; docs/GUIDE.md, "Signals and a clean stop").
// - Destroying a scheduler whose fibers have not all exited terminates with a
//   message: their stacks hold live objects (the std::thread rule).
// - Fibers states: created -> ready -> running -> {ready, waiting, exited}.
//
//   duet::fiber::Scheduler scheduler({.backend = duet::Backend::epoll});
//   auto f = scheduler.spawn([] { duet::fiber::yield(); return 7; });
//   scheduler.run();          // or f.join(), which runs the scheduler until f exits
//   int v = f.join();         // 7
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>

#include "duet/io/backend.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/stackful/detail/fiber_record.hpp"
#include "duet/stackful/detail/ready_queue.hpp"
#include "duet/stackful/fiber.hpp"
#include "duet/stackful/stack_pool.hpp"

namespace duet::fiber {

struct SchedulerOptions {
  Backend backend = Backend::io_uring;                       // the loop's backend (no silent fallback)
  LoopOptions loop = {};
  std::size_t stack_size = StackPool::default_stack_size;   // usable bytes per fiber stack
  std::size_t max_cached_stacks = StackPool::default_max_cached;
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerOptions options = {});
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;
  Scheduler(Scheduler&&) = delete;
  Scheduler& operator=(Scheduler&&) = delete;
  ~Scheduler();

  template <typename F, typename... Args>
  auto spawn(F&& f, Args&&... args)
      -> Fiber<std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>>;

  void run();
  void run(std::stop_source stop);

  // This thread's scheduler, or nullptr.
  [[nodiscard]] static Scheduler* current() noexcept;
  // The fiber running now, or nullptr on the scheduler's own (main) context.
  [[nodiscard]] detail::FiberRecord* running() const noexcept { return running_; }
  [[nodiscard]] std::size_t live_fibers() const noexcept { return live_; }
  // Work outside any fiber that run() must wait for (see run()); every hold
  // is released once. Scheduler thread only.
  void hold() noexcept { ++holds_; }
  void release_hold() noexcept { --holds_; }
  [[nodiscard]] StackPool& stacks() noexcept { return pool_; }
  // The event loop the fibers' I/O runs on (owned; same thread).
  [[nodiscard]] EventLoop& loop() noexcept { return loop_; }

  // Fiber side. yield: to the back of the ready queue. park: WAITING until
  // someone calls make_ready(fiber). Both only on a fiber of this scheduler.
  void yield();
  void park();
  void make_ready(detail::FiberRecord& fiber) noexcept;

  // Main side: turns until done() is true (join from outside any fiber).
  template <typename Done>
  void run_until(Done done) {
    while (!done()) {
      run_ready();
      if (done()) return;
      poll_io();
    }
  }

 private:
  friend void detail::wait_for_exit(detail::FiberRecord&);
  friend void detail::drop_handle(detail::FiberRecord&) noexcept;
  friend struct SchedulerAccess;

  // Called from the templates above, so exported; the rest are internal to
  // libduet (hidden: direct calls, no PLT, on every switch).
  void launch(detail::FiberRecord& fiber);
  void run_ready();
  void poll_io();
  [[gnu::visibility("hidden")]] void run_turns(std::stop_source* stop);
  [[gnu::visibility("hidden")]] void resume(detail::FiberRecord& fiber);
  [[gnu::visibility("hidden")]] void switch_to_main(detail::FiberRecord& self);
  [[gnu::visibility("hidden"), noreturn]] void exit_running() noexcept;
  [[gnu::visibility("hidden")]] void drop_ref(detail::FiberRecord& fiber) noexcept;
  [[gnu::visibility("hidden")]] void keep_error(std::exception_ptr error) noexcept;
  [[gnu::visibility("hidden")]] static void fiber_main(void* data, void* transfer) noexcept;

  EventLoop loop_;
  StackPool pool_;
  detail::ReadyQueue ready_;
  detail::FiberRecord* running_ = nullptr;
  void* main_sp_ = nullptr;
  void* main_fake_stack_ = nullptr;          // ASan: the main context's fake stack
  const void* main_stack_bottom_ = nullptr;  // ASan: learnt at the first switch in
  std::size_t main_stack_size_ = 0;
  void* main_tsan_fiber_ = nullptr;          // TSan: this thread's own context (see annotations.hpp)
  std::size_t live_ = 0;
  std::size_t holds_ = 0;
  std::uint64_t next_id_ = 1;
  std::exception_ptr detached_error_;
  void* alt_stack_ = nullptr;                // sigaltstack for the guard-page report
};

template <typename F, typename... Args>
auto Scheduler::spawn(F&& f, Args&&... args)
    -> Fiber<std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>> {
  using R = std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>;
  auto fn = [f = std::forward<F>(f), bound = std::make_tuple(std::forward<Args>(args)...)]() mutable -> R {
    return std::apply(std::move(f), std::move(bound));
  };
  using Body = detail::FiberBody<R, decltype(fn)>;
  Stack stack = pool_.acquire();
  void* slot = detail::record_slot(stack, sizeof(Body), alignof(Body));
  auto* body = ::new (slot) Body(*this, next_id_++, std::move(fn));
  body->stack_ = std::move(stack);
  launch(*body);
  return Fiber<R>(body);
}

}  // namespace duet::fiber
