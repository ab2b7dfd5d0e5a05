// duet::fiber::detail — reporting a fiber stack overflow instead of corrupting memory silently.
//
// Contract
// - install_guard_handler(): unless it is already in place, a SIGSEGV handler (SA_ONSTACK)
//   that checks whether the fault address lies in the guard page of the fiber
//   running on this thread. If so it writes one line to stderr naming the
//   fiber (id, name, stack size). In every case it then puts back the handler
//   that was there before and returns, so the fault repeats under it: the
//   process dies of SIGSEGV as it would have (or ASan/a debugger sees it).
// - install_alt_stack(): gives the calling thread a signal stack when it has
//   none (the overflowing stack cannot run a handler); returns it for
//   remove_alt_stack(), or nullptr if the thread already had one.
//
//   install_guard_handler();
//   void* alt = install_alt_stack();   // per thread, in Scheduler's constructor
//   remove_alt_stack(alt);             // in its destructor
#pragma once

namespace duet::fiber::detail {

void install_guard_handler();
[[nodiscard]] void* install_alt_stack();
void remove_alt_stack(void* alt_stack) noexcept;

}  // namespace duet::fiber::detail
