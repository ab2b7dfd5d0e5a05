// duet::fiber::detail — telling AddressSanitizer and valgrind about stack switches.
//
// Contract
// - AsanSwitch: call start(...) just before switch_context and finish(...)
//   first thing after control arrives on the other stack. With ASan off these
//   compile to nothing; this header is the only place that asks which build
//   this is, so call sites carry no #ifdef.
// - valgrind_register(stack) / valgrind_deregister(id): tell valgrind (when
//   running under it) that a memory range is a stack, so it does not report
//   every switch as a wild stack-pointer change. Outside valgrind they are a
//   few no-op instructions (a client request).
//
//   void* fake = nullptr;
//   asan_start_switch(&fake, target_bottom, target_size);
//   switch_context(...);
//   asan_finish_switch(fake);
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define DUET_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DUET_FIBER_ASAN 1
#endif
#endif

#if defined(DUET_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
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

// Out of line (annotations.cpp) so <valgrind/valgrind.h> stays out of headers.
unsigned valgrind_register(const void* bottom, const void* top) noexcept;
void valgrind_deregister(unsigned id) noexcept;

}  // namespace duet::fiber::detail
