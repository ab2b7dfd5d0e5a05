// The code docs/GUIDE.md quotes for Event, Latch, Mutex and Semaphore
// (stackless part). Every block between "// guide:begin NAME" and
// "// guide:end" appears verbatim in the guide; tests/io/check_guide.py (a
// meson test) fails if the two drift apart. The test case at the bottom runs
// the snippet on both backends.
#include <catch2/catch.hpp>

#include <chrono>

#include <duet/task/event.hpp>
#include <duet/task/latch.hpp>
#include <duet/task/mutex.hpp>
#include <duet/task/run.hpp>
#include <duet/task/semaphore.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/with_timeout.hpp>

using namespace std::chrono_literals;

namespace guide {

// guide:begin sync
struct Shared {
  explicit Shared(duet::EventLoop& loop) : start(loop), done(loop, 8), lock(loop), slots(loop, 4) {}
  duet::Event start;      // manual-reset: set() releases every waiter, until reset()
  duet::Latch done;       // opens for good when counted down to zero
  duet::Mutex lock;       // FIFO hand-off; lock() gives a scoped guard
  duet::Semaphore slots;  // counting, FIFO: acquire(n) / release(n)
  long total = 0;
};

duet::Task<void> worker(duet::EventLoop& loop, Shared& s) {
  (void)co_await s.start.wait();  // until set()
  if (auto slot = co_await duet::with_timeout(s.slots.acquire(1), 1s); slot) {
    co_await duet::sleep_for(loop, 1ms);  // at most 4 workers in here at once
    s.slots.release(1);
  }
  if (auto guard = co_await s.lock.lock(); guard) ++s.total;  // unlocked at the end of the if
  s.done.count_down();
}

duet::Task<long> run_workers(duet::EventLoop& loop) {
  Shared s(loop);
  duet::TaskScope scope;
  for (int i = 0; i < 8; ++i) scope.spawn(worker(loop, s));
  s.start.set();  // the workers resume from the loop, not in here
  (void)co_await s.done.wait();
  co_await scope.join();
  co_return s.total;  // 8
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's coordination snippet runs eight workers through all four primitives") {
  duet::EventLoop loop(GENERATE(duet::Backend::io_uring, duet::Backend::epoll));
  CHECK(duet::run_until_complete(loop, guide::run_workers(loop)) == 8);
}
