// The code docs/GUIDE.md quotes for duet::fiber's Event, Latch, Mutex and
// Semaphore. Every block between "// guide:begin NAME" and "// guide:end"
// appears verbatim in the guide (in ```c++ fences); check_guide_stackful.py (a
// meson test) fails if the two drift apart. The test case at the bottom runs
// the snippet on both backends.
#include <chrono>
#include <functional>
#include <vector>

#include <catch2/catch.hpp>

#include <duet/stackful/event.hpp>
#include <duet/stackful/latch.hpp>
#include <duet/stackful/mutex.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/semaphore.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/this_fiber.hpp>

using namespace std::chrono_literals;

namespace guide {

// guide:begin sync
struct Shared {
  duet::fiber::Event start;         // manual-reset: set() releases every waiter, until reset()
  duet::fiber::Latch done{8};       // opens for good when counted down to zero
  duet::fiber::Mutex lock;          // FIFO hand-off; lock() gives a scoped guard
  duet::fiber::Semaphore slots{4};  // counting, FIFO: acquire(n) / release(n)
  long total = 0;
};

void worker(Shared& s) {
  (void)s.start.wait();  // until set()
  if (s.slots.acquire_for(1, 1s)) {
    duet::fiber::sleep_for(1ms);  // at most 4 workers in here at once
    s.slots.release(1);
  }
  if (auto guard = s.lock.lock(); guard) ++s.total;  // unlocked at the end of the if
  s.done.count_down();
}

long run_workers() {  // on a fiber
  Shared s;
  std::vector<duet::fiber::Fiber<void>> workers;
  for (int i = 0; i < 8; ++i) workers.push_back(duet::fiber::spawn(worker, std::ref(s)));
  s.start.set();  // the workers run on the next turn, not in here
  (void)s.done.wait();
  for (auto& w : workers) w.join();
  return s.total;  // 8
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber coordination snippet runs eight workers through all four primitives") {
  duet::fiber::Scheduler scheduler({.backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll)});
  CHECK(scheduler.spawn(guide::run_workers).join() == 8);
}
