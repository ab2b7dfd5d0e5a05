// sync_bench's duet rows: a Mutex handed between tasks or fibers, an Event
// ping-pong and a Channel ping-pong (channel_rows.hpp), in both voices on one
// loop (io_uring), one thread.
//
// The hand-off workload is the same in every row, Boost.Fiber's included
// (boost_fiber_rows.cpp), so that each row does the same switches:
//   lock; yield (hold it while the others arrive and queue); unlock; yield.
// The second yield lets the woken waiter run before the releaser asks again:
// duet's FIFO hand-off would not need it (the lock already belongs to the
// waiter), but boost::fibers::mutex lets a releaser that asks at once take the
// lock back (barging), and the other fiber would never get it. One iteration
// is one acquisition; the `repeats` counter must be 0 (every acquisition a
// hand-off, handoff_round.hpp). Per hand-off: three switches (the releaser's
// yield, the new owner's yield, the releaser blocking in lock).
//
// The stackless voice has no yield: TaskYield posts the task's resumption to
// the loop (EventLoop::post), the same user-space delivery that resumes a task
// granted the lock.
#include <benchmark/benchmark.h>

#include <coroutine>

#include "channel_rows.hpp"
#include "handoff_round.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/stackful/channel.hpp"
#include "duet/stackful/event.hpp"
#include "duet/stackful/mutex.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/task/channel.hpp"
#include "duet/task/event.hpp"
#include "duet/task/mutex.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"

namespace {

using duet::bench::HandoffRound;

class TaskYield {
 public:
  explicit TaskYield(duet::EventLoop& loop) noexcept : loop_(&loop) {
    op_.context_ = this;
    op_.complete_ = [](duet::IoOp* op, int /*res*/) noexcept {
      static_cast<TaskYield*>(op->context_)->waiter_.resume();
    };
  }
  TaskYield(const TaskYield&) = delete;
  TaskYield& operator=(const TaskYield&) = delete;
  ~TaskYield() = default;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> waiter) noexcept {
    waiter_ = waiter;
    loop_->post(op_, 0);
  }
  void await_resume() const noexcept {}

 private:
  duet::EventLoop* loop_;
  duet::IoOp op_;
  std::coroutine_handle<> waiter_;
};

// ---- sync/mutex_handoff ----------------------------------------------------

duet::Task<void> task_worker(duet::EventLoop& loop, duet::Mutex& mutex, HandoffRound& round, int me) {
  while (!round.done()) {
    auto lock = co_await mutex.lock();
    if (!round.acquired(me)) break;
    co_await TaskYield(loop);
    lock->unlock();
    co_await TaskYield(loop);
  }
}

void mutex_handoff_duet_task(benchmark::State& state) {
  duet::EventLoop loop(duet::Backend::io_uring);
  duet::Mutex mutex(loop);
  HandoffRound round(state);
  duet::TaskScope scope;
  for (int i = 0; i < state.range(0); ++i) scope.spawn(task_worker(loop, mutex, round, i));
  duet::run_until_complete(loop, scope.join());
}

void mutex_handoff_duet_fiber(benchmark::State& state) {
  duet::fiber::Scheduler scheduler;
  duet::fiber::Mutex mutex;
  HandoffRound round(state);
  for (int i = 0; i < state.range(0); ++i) {
    scheduler.spawn([&mutex, &round, i] {
      while (!round.done()) {
        auto lock = mutex.lock();
        if (!round.acquired(i)) break;
        duet::fiber::yield();
        lock->unlock();
        duet::fiber::yield();
      }
    }).detach();
  }
  scheduler.run();
}

// ---- sync/event_pingpong: one iteration is a round trip (two wake-ups) -----
// ping.set() wakes the ponger, which resets ping and sets pong; the pinger
// resets pong and goes again. Manual-reset, so each side resets its own event
// before the other can set it again.

duet::Task<void> task_pinger(duet::Event& ping, duet::Event& pong, HandoffRound& round) {
  while (round.next()) {
    ping.set();
    (void)co_await pong.wait();
    pong.reset();
  }
  ping.set();  // the ponger sees done() and leaves
}

duet::Task<void> task_ponger(duet::Event& ping, duet::Event& pong, HandoffRound& round) {
  for (;;) {
    (void)co_await ping.wait();
    ping.reset();
    if (round.done()) break;
    pong.set();
  }
}

void event_pingpong_duet_task(benchmark::State& state) {
  duet::EventLoop loop(duet::Backend::io_uring);
  duet::Event ping(loop);
  duet::Event pong(loop);
  HandoffRound round(state);
  duet::TaskScope scope;
  scope.spawn(task_ponger(ping, pong, round));
  scope.spawn(task_pinger(ping, pong, round));
  duet::run_until_complete(loop, scope.join());
}

void event_pingpong_duet_fiber(benchmark::State& state) {
  duet::fiber::Scheduler scheduler;
  duet::fiber::Event ping;
  duet::fiber::Event pong;
  HandoffRound round(state);
  scheduler.spawn([&] {
    for (;;) {
      (void)ping.wait();
      ping.reset();
      if (round.done()) break;
      pong.set();
    }
  }).detach();
  scheduler.spawn([&] {
    while (round.next()) {
      ping.set();
      (void)pong.wait();
      pong.reset();
    }
    ping.set();
  }).detach();
  scheduler.run();
}

// ---- sync/channel_pingpong: one iteration is a round trip (two hand-offs) --

duet::Task<void> task_channel_pinger(duet::Channel<int>& ping, duet::Channel<int>& pong, HandoffRound& round) {
  int v = 0;
  while (round.next()) {
    (void)co_await ping.send(v);
    v = (co_await pong.recv()).value();
  }
  ping.close();  // the ponger's recv fails: it leaves
}

duet::Task<void> task_channel_ponger(duet::Channel<int>& ping, duet::Channel<int>& pong) {
  while (auto v = co_await ping.recv()) (void)co_await pong.send(*v + 1);
}

void channel_pingpong_duet_task(benchmark::State& state) {
  duet::EventLoop loop(duet::Backend::io_uring);
  duet::Channel<int> ping(loop, 1);
  duet::Channel<int> pong(loop, 1);
  HandoffRound round(state);
  duet::TaskScope scope;
  scope.spawn(task_channel_ponger(ping, pong));
  scope.spawn(task_channel_pinger(ping, pong, round));
  duet::run_until_complete(loop, scope.join());
}

void channel_pingpong_duet_fiber(benchmark::State& state) {
  duet::fiber::Scheduler scheduler;
  duet::fiber::Channel<int> ping(1);
  duet::fiber::Channel<int> pong(1);
  HandoffRound round(state);
  scheduler.spawn([&] {
    while (auto v = ping.recv()) (void)pong.send(*v + 1);
  }).detach();
  scheduler.spawn([&] {
    int v = 0;
    while (round.next()) {
      (void)ping.send(v);
      v = pong.recv().value();
    }
    ping.close();
  }).detach();
  scheduler.run();
}

}  // namespace

SYNC_BENCHMARK("sync/mutex_handoff/duet_task", mutex_handoff_duet_task)->Arg(2)->Arg(8);
SYNC_BENCHMARK("sync/mutex_handoff/duet_fiber", mutex_handoff_duet_fiber)->Arg(2)->Arg(8);
SYNC_BENCHMARK("sync/event_pingpong/duet_task", event_pingpong_duet_task);
SYNC_BENCHMARK("sync/event_pingpong/duet_fiber", event_pingpong_duet_fiber);
SYNC_BENCHMARK("sync/channel_pingpong/duet_task", channel_pingpong_duet_task);
SYNC_BENCHMARK("sync/channel_pingpong/duet_fiber", channel_pingpong_duet_fiber);
