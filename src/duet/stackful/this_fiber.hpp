// duet::fiber — what code running on a fiber calls: spawn, yield, id, name.
//
// Contract
// - spawn(f, args...): Scheduler::current()->spawn(...); throws
//   std::logic_error on a thread without a scheduler.
// - yield(): the running fiber goes to the back of the ready queue; the others
//   (and an I/O poll) run first. Outside a fiber it does nothing.
// - in_fiber(): true on a fiber of this thread's scheduler.
// - current_id(): the running fiber's id (1, 2, ...), 0 outside fibers.
// - set_name(name): names the running fiber (first 31 bytes) for the
//   stack-overflow report.
// (sleep_for / sleep_until live in stackful/sleep.hpp with the I/O calls.)
//
//   duet::fiber::spawn([] {
//     duet::fiber::set_name("ticker");
//     for (int i = 0; i < 3; ++i) duet::fiber::yield();
//   });
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "duet/stackful/scheduler.hpp"

namespace duet::fiber {

template <typename F, typename... Args>
auto spawn(F&& f, Args&&... args) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error("duet: fiber::spawn on a thread without a Scheduler");
  return scheduler->spawn(std::forward<F>(f), std::forward<Args>(args)...);
}

inline bool in_fiber() noexcept {
  Scheduler* scheduler = Scheduler::current();
  return scheduler != nullptr && scheduler->running() != nullptr;
}

inline void yield() {
  if (Scheduler* scheduler = Scheduler::current()) scheduler->yield();
}

inline std::uint64_t current_id() noexcept {
  Scheduler* scheduler = Scheduler::current();
  return scheduler != nullptr && scheduler->running() != nullptr ? scheduler->running()->id_ : 0;
}

inline void set_name(std::string_view name) noexcept {
  if (!in_fiber()) return;
  char* out = Scheduler::current()->running()->name_;
  const std::size_t n = name.size() < 31 ? name.size() : 31;
  for (std::size_t i = 0; i < n; ++i) out[i] = name[i];
  out[n] = '\0';
}

}  // namespace duet::fiber
