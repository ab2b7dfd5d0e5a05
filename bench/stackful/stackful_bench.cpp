// Context switch and fiber spawn: duet beside boost.context and ucontext.
//
// One iteration of a switch benchmark is a round trip: main -> other -> main,
// i.e. two switches. Every variant saves the same callee-saved registers; duet
// and boost.context (fcontext) both also save MXCSR and the x87 control word;
// ucontext saves more and makes a sigprocmask system call per switch.
// The *_rounding_differs rows give each side its own rounding mode (in MXCSR
// and the x87 control word) and only main the inexact flag, so every switch
// loads the other side's control bits; what it does with the status flags
// decides the cost (switch_x86_64.S, "Status flags travel").
//
//   ninja -C build-release bench/stackful/stackful_bench
//   taskset -c 1 build-release/bench/stackful/stackful_bench --benchmark_repetitions=10
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true   (one line)
#include <ucontext.h>

#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <cfenv>
#include <cstdint>

#include <benchmark/benchmark.h>

#include "duet/stackful/detail/context.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/stack.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace ctx = boost::context;
namespace detail = duet::fiber::detail;

namespace {

constexpr std::size_t stack_size = 128 * 1024;

// ---- switch/duet: the raw assembly switch, no scheduler ----
// Each side parks its stack pointer in pp and the other loads it from there (a
// store-to-load forward per switch), where boost hands its fcontext over in rax:
// each API used as written, so the difference is part of what is measured.
struct DuetPingPong {
  void* main_sp = nullptr;
  void* other_sp = nullptr;
};

template <bool RoundingDiffers>
void duet_partner(void* data, void* /*transfer*/) noexcept {
  if constexpr (RoundingDiffers) std::fesetround(FE_TOWARDZERO);
  auto& pp = *static_cast<DuetPingPong*>(data);
  for (;;) detail::switch_context(&pp.other_sp, pp.main_sp, nullptr);
}

// Main's side of a *_rounding_differs row: no status flags while the partner
// is created (boost's partner starts from a copy of main's MXCSR), then its own
// rounding mode (upward) and the inexact flag in MXCSR, as its own inexact
// arithmetic would leave it (feraiseexcept would raise the x87 one). The
// partner rounds toward zero and computes nothing. The plain rows leave the
// FP state alone, as they always have.
class MainRounding {
 public:
  explicit MainRounding(bool active) noexcept : active_(active) {
    if (active_) std::feclearexcept(FE_ALL_EXCEPT);
  }
  MainRounding(const MainRounding&) = delete;
  MainRounding& operator=(const MainRounding&) = delete;
  ~MainRounding() {
    if (!active_) return;
    std::fesetround(FE_TONEAREST);
    std::feclearexcept(FE_ALL_EXCEPT);
  }
  void enter() const noexcept {
    if (!active_) return;
    std::fesetround(FE_UPWARD);
    volatile double third = 1.0;
    third = third / 3.0;
  }

 private:
  bool active_;
};

template <bool RoundingDiffers>
void switch_duet(benchmark::State& state) {
  MainRounding rounding(RoundingDiffers);
  duet::fiber::Stack stack = duet::fiber::Stack::allocate(stack_size);
  DuetPingPong pp;
  pp.other_sp = detail::make_context(stack.top(), &duet_partner<RoundingDiffers>, &pp);
  rounding.enter();
  for (auto _ : state) detail::switch_context(&pp.main_sp, pp.other_sp, nullptr);
  state.SetItemsProcessed(2 * state.iterations());  // items = switches
}
BENCHMARK(switch_duet<false>)->Name("switch/duet");
BENCHMARK(switch_duet<true>)->Name("switch/duet_rounding_differs");

// ---- switch/boost_context: boost::context::fiber, resume() both ways ----
template <bool RoundingDiffers>
void switch_boost_context(benchmark::State& state) {
  MainRounding rounding(RoundingDiffers);
  ctx::fiber partner(std::allocator_arg, ctx::fixedsize_stack(stack_size), [](ctx::fiber&& main) {
    if constexpr (RoundingDiffers) std::fesetround(FE_TOWARDZERO);
    for (;;) main = std::move(main).resume();
    return std::move(main);
  });
  rounding.enter();
  for (auto _ : state) partner = std::move(partner).resume();
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(switch_boost_context<false>)->Name("switch/boost_context");
BENCHMARK(switch_boost_context<true>)->Name("switch/boost_context_rounding_differs");

// ---- switch/ucontext: swapcontext both ways ----
ucontext_t uc_main;
ucontext_t uc_other;

void uc_partner() {
  for (;;) swapcontext(&uc_other, &uc_main);
}

void switch_ucontext(benchmark::State& state) {
  duet::fiber::Stack stack = duet::fiber::Stack::allocate(stack_size);
  getcontext(&uc_other);
  uc_other.uc_stack.ss_sp = stack.bottom();
  uc_other.uc_stack.ss_size = stack.usable_size();
  uc_other.uc_link = nullptr;
  makecontext(&uc_other, &uc_partner, 0);
  for (auto _ : state) swapcontext(&uc_main, &uc_other);
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(switch_ucontext)->Name("switch/ucontext");

// ---- switch/duet_yield: two fibers yielding through the scheduler ----
void switch_duet_yield(benchmark::State& state) {
  duet::fiber::Scheduler scheduler;
  bool stop = false;
  std::int64_t yields = 0;
  auto other = scheduler.spawn([&] {
    while (!stop) duet::fiber::yield();
  });
  auto self = scheduler.spawn([&] {
    for (auto _ : state) {
      duet::fiber::yield();
      ++yields;
    }
    stop = true;
  });
  self.join();
  other.join();
  state.SetItemsProcessed(yields);  // items = yields (each is 2 switches per fiber)
}
BENCHMARK(switch_duet_yield)->Name("switch/duet_scheduler_yield");

// ---- spawn: create + run + destroy an empty fiber on a pooled, guarded stack ----
void spawn_duet(benchmark::State& state) {
  duet::fiber::Scheduler scheduler({.stack_size = stack_size});
  for (auto _ : state) scheduler.spawn([] {}).join();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(spawn_duet)->Name("spawn/duet");

void spawn_boost_pooled(benchmark::State& state) {
  ctx::pooled_fixedsize_stack pool(stack_size);
  for (auto _ : state) {
    ctx::fiber f(std::allocator_arg, pool, [](ctx::fiber&& main) { return std::move(main); });
    f = std::move(f).resume();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(spawn_boost_pooled)->Name("spawn/boost_pooled_fixedsize_stack");

}  // namespace

BENCHMARK_MAIN();
