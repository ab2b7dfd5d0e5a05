// The raw context switch: registers, floating-point control state, alignment,
// transfer values. These tests drive switch_x86_64.S directly, no scheduler.
#include <cfenv>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "stackful/detail/context.hpp"
#include "stackful/scheduler.hpp"
#include "stackful/stack.hpp"
#include "stackful/this_fiber.hpp"

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
