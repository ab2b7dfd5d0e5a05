// A program outside the duet tree: proves the installed headers, duet.pc, the
// CMake package and the subproject dependency are enough to build against
// duet, in both voices, with nothing but the umbrella header.
#include <duet/duet.hpp>

#include <chrono>

duet::Task<int> answer() { co_return 42; }

int main() {
  if (duet::sync_wait(answer()) != 42) return 1;
  // A fiber that sleeps on the scheduler's loop: the stackful voice links too.
  duet::fiber::Scheduler scheduler;
  int slept = 0;
  scheduler.spawn([&] { slept = duet::fiber::sleep_for(std::chrono::milliseconds(1)) ? 1 : 0; });
  scheduler.run();
  return slept == 1 ? 0 : 2;
}
