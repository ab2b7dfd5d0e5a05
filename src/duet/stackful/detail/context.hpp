// duet::fiber::detail — the raw context switch (switch_x86_64.S, switch_aarch64.S) seen from C++.
//
// Contract
// - A context is just a saved stack pointer (`void*`): the callee-saved
//   registers, MXCSR, the x87 control word and the resume address sit on the
//   suspended stack itself (frame diagrams in the .S files).
// - switch_context(&mine, theirs, t) parks the caller in `mine` and resumes
//   `theirs`, which sees `t` as the return value of its own switch_context (or
//   as the second argument of its entry function). Returns the transfer value
//   passed by whoever resumes the caller later.
// - make_context(top, entry, data) builds a new context at the top of a stack;
//   resuming it calls entry(data, transfer) on that stack. entry must never
//   return: it ends by switching away for good.
// - No allocation, no system call, no signal mask change; one thread at a time
//   per context (switching is not a synchronisation point).
//
//   void* main_sp; void* fiber_sp = make_context(top, &body, &state);
//   switch_context(&main_sp, fiber_sp, nullptr);   // runs body until it switches back
#pragma once

#include <cstdint>

extern "C" {
void* duet_context_switch(void** save_sp, void* load_sp, void* transfer) noexcept;
void duet_context_entry() noexcept;
// The same function under a hidden name: libduet's own calls skip the PLT.
// Only usable from inside libduet (it is not exported).
[[gnu::visibility("hidden")]] void* duet_context_switch_local(void** save_sp, void* load_sp,
                                                             void* transfer) noexcept;
}

namespace duet::fiber::detail {

using EntryFn = void (*)(void* data, void* transfer) noexcept;

inline void* switch_context(void** save_sp, void* load_sp, void* transfer) noexcept {
  return duet_context_switch(save_sp, load_sp, transfer);
}

// For libduet's scheduler only (see duet_context_switch_local).
inline void* switch_context_local(void** save_sp, void* load_sp, void* transfer) noexcept {
  return duet_context_switch_local(save_sp, load_sp, transfer);
}

// Builds a frame duet_context_switch pops, at the 16-byte aligned top of a
// stack, so that resuming it enters duet_context_entry with entry in a
// callee-saved register and data in another (frame diagrams in the .S files).
// The one place that knows which CPU this is.
#if defined(__x86_64__)
// [0] MXCSR | x87 CW << 32, [1] r15, [2] r14, [3] r13 = data, [4] r12 = entry,
// [5] rbx, [6] rbp = 0, [7] resume address = duet_context_entry.
inline void* make_context(void* stack_top, EntryFn entry, void* data) noexcept {
  auto top = reinterpret_cast<std::uintptr_t>(stack_top) & ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 8;
  constexpr std::uint64_t default_mxcsr = 0x1F80;  // all exceptions masked, round to nearest
  constexpr std::uint64_t default_x87_cw = 0x037F;  // same, 64-bit precision (the ABI's initial state)
  frame[0] = default_mxcsr | (default_x87_cw << 32);
  frame[1] = 0;
  frame[2] = 0;
  frame[3] = reinterpret_cast<std::uint64_t>(data);
  frame[4] = reinterpret_cast<std::uint64_t>(entry);
  frame[5] = 0;
  frame[6] = 0;
  frame[7] = reinterpret_cast<std::uint64_t>(&duet_context_entry);
  return frame;
}
#elif defined(__aarch64__)
// 22 slots: [0..7] d8-d15, [8] x19 = entry, [9] x20 = data, [10..17] x21-x28,
// [18] x29 = 0, [19] x30 = duet_context_entry, [20] FPCR = 0 (round to nearest), [21] pad.
inline void* make_context(void* stack_top, EntryFn entry, void* data) noexcept {
  auto top = reinterpret_cast<std::uintptr_t>(stack_top) & ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 22;
  for (int i = 0; i < 22; ++i) frame[i] = 0;
  frame[8] = reinterpret_cast<std::uint64_t>(entry);
  frame[9] = reinterpret_cast<std::uint64_t>(data);
  frame[19] = reinterpret_cast<std::uint64_t>(&duet_context_entry);
  return frame;
}
#else
#error "duet's stackful voice has a context switch for x86-64 and AArch64 only"
#endif

}  // namespace duet::fiber::detail
