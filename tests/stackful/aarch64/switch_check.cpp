// The AArch64 context switch under qemu-user (no AArch64 liburing here, so
// this checks the switch alone, not the scheduler): callee-saved registers
// survive, FPCR is per context, the entry stack is 16-byte aligned, transfer
// values travel both ways. Prints one line per check; exits 0 if all pass.
//   tests/stackful/aarch64/run_qemu.sh
#include <cfenv>
#include <cstdint>
#include <cstdio>

#include "duet/stackful/detail/context.hpp"
#include "duet/stackful/stack.hpp"

extern "C" {
void duet_test_switch_with_patterns(void** save, void* load, std::uint64_t* out);
void duet_test_clobber_and_switch(void** save, void* load);
}

namespace {

namespace detail = duet::fiber::detail;
int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

struct Pair {
  void* main_sp = nullptr;
  void* other_sp = nullptr;
  std::uintptr_t sp_at_entry = 0;
  int round = 0;
};

void clobberer(void* data, void*) noexcept {
  auto& p = *static_cast<Pair*>(data);
  for (;;) duet_test_clobber_and_switch(&p.other_sp, p.main_sp);
}

void rounding_upward(void* data, void* transfer) noexcept {
  auto& p = *static_cast<Pair*>(data);
  p.sp_at_entry = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  std::fesetround(FE_UPWARD);
  for (;;) {
    p.round = std::fegetround() == FE_UPWARD ? 1 : 0;
    auto v = reinterpret_cast<std::uintptr_t>(transfer);
    transfer = detail::switch_context(&p.other_sp, p.main_sp, reinterpret_cast<void*>(v * 2));
  }
}

}  // namespace

int main() {
  auto stack = duet::fiber::Stack::allocate(64 * 1024);
  Pair p;
  p.other_sp = detail::make_context(stack.top(), &clobberer, &p);
  std::uint64_t out[18] = {};
  duet_test_switch_with_patterns(&p.main_sp, p.other_sp, out);
  bool regs = true;
  for (int i = 0; i < 10; ++i) regs = regs && out[i] == static_cast<std::uint64_t>(19 + i);
  check(regs, "x19-x28 survive a switch to a context that clobbers them");
  bool fps = true;
  for (int i = 0; i < 8; ++i) {
    double d = 0;
    __builtin_memcpy(&d, &out[10 + i], sizeof d);
    fps = fps && d == 8.0 + i;
  }
  check(fps, "d8-d15 survive a switch to a context that clobbers them");

  auto stack2 = duet::fiber::Stack::allocate(64 * 1024);
  Pair q;
  q.other_sp = detail::make_context(stack2.top(), &rounding_upward, &q);
  void* back = detail::switch_context(&q.main_sp, q.other_sp, reinterpret_cast<void*>(21));
  check(reinterpret_cast<std::uintptr_t>(back) == 42, "transfer values travel both ways");
  check(q.sp_at_entry % 16 == 0, "the entry function's frame is 16-byte aligned");
  check(std::fegetround() == FE_TONEAREST, "the other context's rounding mode does not leak back");
  back = detail::switch_context(&q.main_sp, q.other_sp, reinterpret_cast<void*>(5));
  check(q.round == 1 && reinterpret_cast<std::uintptr_t>(back) == 10, "its own rounding mode survives our switch");
  return failures == 0 ? 0 : 1;
}
