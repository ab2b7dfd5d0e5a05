// duet::fiber::detail — telling AddressSanitizer, ThreadSanitizer and valgrind about stack switches.
//
// Contract
// - ASan: call asan_start_switch(...) just before switch_context and
//   asan_finish_switch(...) first thing after control arrives on the other
//   stack. With ASan off these compile to nothing; this header is the only
//   place that asks which build this is, so call sites carry no #ifdef.
// - TSan: each fiber gets its own TSan context (tsan_create_fiber when it is
//   launched, tsan_destroy_fiber once it has exited, from another context);
//   the scheduler keeps its thread's own (tsan_capture_current, once, on
//   that thread). tsan_switch_to(target) goes just before every
//   switch_context, in the same function. With TSan off all four compile to
//   nothing.
// - valgrind_register(stack) / valgrind_deregister(id): tell valgrind (when
//   running under it) that a memory range is a stack, so it does not report
//   every switch as a wild stack-pointer change. Outside valgrind they are a
//   few no-op instructions (a client request).
//
//   void* fake = nullptr;
//   asan_start_switch(&fake, target_bottom, target_size);
//   tsan_switch_to(target_tsan_fiber);
//   switch_context(...);
//   asan_finish_switch(fake);
#pragma once

#include <cstddef>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define DUET_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DUET_FIBER_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define DUET_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DUET_FIBER_TSAN 1
#endif
#endif

#if defined(DUET_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(DUET_FIBER_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace duet::fiber::detail {

#if defined(DUET_FIBER_ASAN)
inline constexpr bool asan_enabled = true;
inline void asan_start_switch(void** fake_stack_save, const void* bottom, std::size_t size) noexcept {
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
}
inline void asan_finish_switch(void* fake_stack_save, const void** old_bottom = nullptr,
                               std::size_t* old_size = nullptr) noexcept {
  __sanitizer_finish_switch_fiber(fake_stack_save, old_bottom, old_size);
}
// A fiber that ends by switching away never returns from its last frames, so
// their redzones stay poisoned; clear them before the stack is reused.
inline void asan_unpoison(const void* bottom, std::size_t size) noexcept {
  __asan_unpoison_memory_region(bottom, size);
}
#else
inline constexpr bool asan_enabled = false;
inline void asan_start_switch(void**, const void*, std::size_t) noexcept {}
inline void asan_finish_switch(void*, const void** = nullptr, std::size_t* = nullptr) noexcept {}
inline void asan_unpoison(const void*, std::size_t) noexcept {}
#endif

// TSan keeps a shadow call stack per context: every instrumented function
// pushes a frame on entry and pops one on exit from whichever context is
// current *then*. So the switch annotation must not be a function of its own:
// its entry would push on the source's stack and its exit pop the target's,
// underflowing the empty stack of a fiber on its first switch in. Always
// inlined, it lands in the function that calls switch_context, whose frames
// balance across the switch. Flags 0, not __tsan_switch_to_fiber_no_sync:
// each switch is a happens-before edge, which is true — fibers of one thread
// run one at a time, handing over only at these switches — and without it
// TSan would report the ready queue and every record the scheduler and its
// fibers share as races.
#if defined(DUET_FIBER_TSAN)
inline constexpr bool tsan_enabled = true;
// The context running now: the thread's own for a scheduler on its thread.
inline void tsan_capture_current(void*& slot) noexcept { slot = __tsan_get_current_fiber(); }
inline void tsan_create_fiber(void*& slot) noexcept { slot = __tsan_create_fiber(0); }
// Never the running context (TSan cannot destroy the stack it stands on):
// called from the scheduler's context after the fiber's last switch.
inline void tsan_destroy_fiber(void*& slot) noexcept { __tsan_destroy_fiber(std::exchange(slot, nullptr)); }
[[gnu::always_inline]] inline void tsan_switch_to(void* fiber) noexcept { __tsan_switch_to_fiber(fiber, 0); }
#else
// The slots stay in the records in every build (one layout whichever way a
// user's code is compiled) but are not even written here.
inline constexpr bool tsan_enabled = false;
inline void tsan_capture_current(void*&) noexcept {}
inline void tsan_create_fiber(void*&) noexcept {}
inline void tsan_destroy_fiber(void*&) noexcept {}
[[gnu::always_inline]] inline void tsan_switch_to(void*) noexcept {}
#endif

// Out of line (annotations.cpp) so <valgrind/valgrind.h> stays out of headers.
unsigned valgrind_register(const void* bottom, const void* top) noexcept;
void valgrind_deregister(unsigned id) noexcept;

}  // namespace duet::fiber::detail
