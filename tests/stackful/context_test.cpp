// The raw context switch: registers, floating-point control state, alignment,
// transfer values. These tests drive switch_x86_64.S directly, no scheduler.
#include <cfenv>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "duet/stackful/detail/context.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/stack.hpp"
#include "duet/stackful/this_fiber.hpp"

extern "C" {
void duet_test_switch_with_patterns(void** save, void* load, std::uint64_t* out);
void duet_test_clobber_and_switch(void** save, void* load);
void duet_test_record_entry_rsp(void* probe, void* transfer) noexcept;
}

namespace {

using duet::fiber::Stack;
namespace detail = duet::fiber::detail;

std::uint32_t read_mxcsr() noexcept {
  std::uint32_t value = 0;
  asm volatile("stmxcsr %0" : "=m"(value));
  return value;
}

std::uint16_t read_x87_cw() noexcept {
  std::uint16_t value = 0;
  asm volatile("fnstcw %0" : "=m"(value));
  return value;
}

void write_mxcsr(std::uint32_t value) noexcept { asm volatile("ldmxcsr %0" : : "m"(value)); }

constexpr std::uint32_t mxcsr_control = 0xFFC0;  // DAZ, masks, RC, FZ; bits 0-5 are status flags
constexpr std::uint32_t mxcsr_inexact = 0x0020;  // PE, a sticky status flag

// A context that installs its own FP control state once, then reports what it
// finds each time it is resumed.
struct FpContext {
  void* main_sp = nullptr;
  void* fiber_sp = nullptr;
  std::uint32_t mxcsr = 0;  // installed at entry
  std::uint16_t x87_cw = 0;
  std::uint32_t seen_mxcsr = 0;  // read after the last resume
  std::uint16_t seen_x87_cw = 0;
};

// It reads and writes the fields in place, with no local whose address is
// taken: it never returns, so ASan would leave such a local's redzones
// poisoned on the stack, and the next user of that memory would trip on them.
void fp_body(void* data, void* /*transfer*/) noexcept {
  auto& fp = *static_cast<FpContext*>(data);
  asm volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(fp.mxcsr), "m"(fp.x87_cw));
  for (;;) {
    detail::switch_context(&fp.fiber_sp, fp.main_sp, nullptr);
    asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(fp.seen_mxcsr), "=m"(fp.seen_x87_cw));
  }
}

struct Ping {
  void* main_sp = nullptr;
  void* fiber_sp = nullptr;
  int round_trips = 0;
};

void clobbering_body(void* data, void* /*transfer*/) noexcept {
  auto& ping = *static_cast<Ping*>(data);
  for (;;) {
    ++ping.round_trips;
    duet_test_clobber_and_switch(&ping.fiber_sp, ping.main_sp);
  }
}

struct EntryProbe {
  void* self_sp = nullptr;
  void* main_sp = nullptr;
  std::uint64_t rsp = 0;
};

struct Echo {
  void* main_sp = nullptr;
  void* fiber_sp = nullptr;
};

void echo_body(void* data, void* transfer) noexcept {
  auto& echo = *static_cast<Echo*>(data);
  for (;;) {
    auto value = reinterpret_cast<std::uintptr_t>(transfer);
    transfer = detail::switch_context(&echo.fiber_sp, echo.main_sp, reinterpret_cast<void*>(value * 2));
  }
}

}  // namespace

TEST_CASE("callee-saved registers survive a switch to a context that clobbers them") {
  Stack stack = Stack::allocate(64 * 1024);
  Ping ping;
  ping.fiber_sp = detail::make_context(stack.top(), &clobbering_body, &ping);
  for (int i = 0; i < 3; ++i) {
    std::uint64_t out[6] = {};
    duet_test_switch_with_patterns(&ping.main_sp, ping.fiber_sp, out);
    CHECK(out[0] == 0x1111111111111111u);  // rbx
    CHECK(out[1] == 0x2222222222222222u);  // rbp
    CHECK(out[2] == 0x3333333333333333u);  // r12
    CHECK(out[3] == 0x4444444444444444u);  // r13
    CHECK(out[4] == 0x5555555555555555u);  // r14
    CHECK(out[5] == 0x6666666666666666u);  // r15
  }
  CHECK(ping.round_trips == 3);
}

TEST_CASE("a new context's entry function starts with (rsp + 8) % 16 == 0") {
  Stack stack = Stack::allocate(64 * 1024);
  for (std::uintptr_t skew = 0; skew < 16; skew += 8) {  // make_context aligns any top
    EntryProbe probe;
    void* top = static_cast<char*>(stack.top()) - skew;
    void* sp = detail::make_context(top, &duet_test_record_entry_rsp, &probe);
    detail::switch_context(&probe.main_sp, sp, nullptr);
    REQUIRE(probe.rsp != 0);
    CHECK((probe.rsp + 8) % 16 == 0);
  }
}

TEST_CASE("the transfer value travels both ways through a switch") {
  Stack stack = Stack::allocate(64 * 1024);
  Echo echo;
  echo.fiber_sp = detail::make_context(stack.top(), &echo_body, &echo);
  for (std::uintptr_t v = 1; v < 100; v += 7) {
    void* back = detail::switch_context(&echo.main_sp, echo.fiber_sp, reinterpret_cast<void*>(v));
    CHECK(reinterpret_cast<std::uintptr_t>(back) == 2 * v);
  }
}

TEST_CASE("a fiber that changes its rounding mode leaves other fibers and the scheduler unaffected") {
  const std::uint32_t main_mxcsr = read_mxcsr();
  const std::uint16_t main_cw = read_x87_cw();
  duet::fiber::Scheduler scheduler;
  std::vector<int> seen;
  auto upward = scheduler.spawn([&] {
    std::fesetround(FE_UPWARD);  // sets both MXCSR.RC and the x87 CW
    for (int i = 0; i < 3; ++i) {
      duet::fiber::yield();
      seen.push_back(std::fegetround() == FE_UPWARD ? 1 : 0);
    }
    volatile double third = 1.0;
    return (third / 3.0) * 3.0 > 1.0;  // rounds up
  });
  auto nearest = scheduler.spawn([&] {
    for (int i = 0; i < 3; ++i) {
      duet::fiber::yield();
      seen.push_back(std::fegetround() == FE_TONEAREST ? 2 : 0);
      seen.push_back((read_mxcsr() & 0xFFC0u) == 0x1F80 ? 3 : 0);  // control bits only: status flags are caller-saved
    }
  });
  scheduler.run();
  CHECK(upward.join());
  nearest.join();
  CHECK(seen == std::vector<int>{1, 2, 3, 1, 2, 3, 1, 2, 3});
  CHECK((read_mxcsr() & 0xFFC0u) == (main_mxcsr & 0xFFC0u));
  CHECK(read_x87_cw() == main_cw);
}

TEST_CASE("the x87 precision control is saved per fiber") {
  duet::fiber::Scheduler scheduler;
  std::uint16_t inside = 0;
  std::uint16_t other = 0;
  auto single = scheduler.spawn([&] {
    std::uint16_t cw = static_cast<std::uint16_t>(read_x87_cw() & ~0x0300u);  // PC = single precision
    asm volatile("fldcw %0" : : "m"(cw));
    duet::fiber::yield();
    inside = read_x87_cw();
  });
  auto plain = scheduler.spawn([&] { other = read_x87_cw(); });
  scheduler.run();
  CHECK((inside & 0x0300u) == 0);
  CHECK(other == 0x037F);
}

// The switch loads MXCSR and the x87 control word out of line, each only when
// it differs (switch_x86_64.S): each path alone, and both, in both directions.
TEST_CASE("a context whose FP control state differs gets its own back on every switch, and so does its switcher") {
  const std::uint32_t main_mxcsr = read_mxcsr() & mxcsr_control;
  const std::uint16_t main_cw = read_x87_cw();
  struct Case {
    std::uint32_t mxcsr;
    std::uint16_t x87_cw;
  };
  const Case which = GENERATE_COPY(Case{main_mxcsr | 0x8040u, main_cw},  // FZ + DAZ: MXCSR alone differs
                                   Case{main_mxcsr, std::uint16_t(main_cw & ~0x0300u)},  // single precision: x87 alone
                                   Case{main_mxcsr | 0x6000u, std::uint16_t(main_cw | 0x0C00u)});  // toward zero: both
  REQUIRE(main_mxcsr == 0x1F80);  // the ABI's initial state, which the cases above change
  REQUIRE(main_cw == 0x037F);
  Stack stack = Stack::allocate(64 * 1024);
  FpContext fp;
  fp.mxcsr = which.mxcsr;
  fp.x87_cw = which.x87_cw;
  fp.fiber_sp = detail::make_context(stack.top(), &fp_body, &fp);
  detail::switch_context(&fp.main_sp, fp.fiber_sp, nullptr);  // it installs its state and switches back
  for (int i = 0; i < 3; ++i) {
    CHECK((read_mxcsr() & mxcsr_control) == main_mxcsr);
    CHECK(read_x87_cw() == main_cw);
    detail::switch_context(&fp.main_sp, fp.fiber_sp, nullptr);
    CHECK((fp.seen_mxcsr & mxcsr_control) == which.mxcsr);
    CHECK(fp.seen_x87_cw == which.x87_cw);
  }
  CHECK((read_mxcsr() & mxcsr_control) == main_mxcsr);
  CHECK(read_x87_cw() == main_cw);
}

// Status flags are caller-saved, so they stay with the thread: a switch that
// loaded MXCSR whenever they differed, or loaded the saved flags along with
// different control bits, would pay ~50 ns (Intel) per switch between a context
// that did inexact arithmetic and one that did not. The flag raised here must
// simply carry over, with the same control bits (fast path) and with different
// ones (the out-of-line load).
TEST_CASE("MXCSR status flags stay with the thread across a switch, whether or not it loads the other context's control bits") {
  const std::uint32_t rounding = GENERATE(0x0000u, 0x6000u);  // the same as ours, or toward zero
  Stack stack = Stack::allocate(64 * 1024);
  FpContext fp;
  fp.mxcsr = (read_mxcsr() & ~0x3Fu) | rounding;  // no flags
  fp.x87_cw = read_x87_cw();
  fp.fiber_sp = detail::make_context(stack.top(), &fp_body, &fp);
  detail::switch_context(&fp.main_sp, fp.fiber_sp, nullptr);
  write_mxcsr(read_mxcsr() | mxcsr_inexact);  // we raise PE; its saved MXCSR has no flag
  detail::switch_context(&fp.main_sp, fp.fiber_sp, nullptr);
  CHECK((fp.seen_mxcsr & mxcsr_inexact) != 0);
  CHECK((fp.seen_mxcsr & mxcsr_control) == (fp.mxcsr & mxcsr_control));
  CHECK((read_mxcsr() & 0x6000u) == 0);  // and we got our rounding back
  write_mxcsr(read_mxcsr() & ~0x3Fu);
}
