// The scheduler's switching. Every switch goes through the scheduler's own
// ("main") context: main -> fiber in resume(), fiber -> main in
// switch_to_main() and exit_running(). Two switches per hand-over keep the
// turn structure simple (each turn ends with an I/O poll) and make the main
// context the only place that frees fibers: a fiber never frees its own stack
// while standing on it.
//
// ASan needs to hear about each switch: start_switch just before, with the
// target stack's bounds, and finish_switch first thing on arrival. A fiber
// leaving for good passes nullptr so ASan frees its fake stack. TSan hears
// tsan_switch_to(target) right before the jump, and a fiber's TSan context is
// destroyed by the main context once the fiber has made its last switch.
#include "duet/stackful/scheduler.hpp"

#include <cstdio>
#include <stdexcept>

#include "duet/io/sim_world.hpp"
#include "duet/stackful/detail/annotations.hpp"
#include "duet/stackful/detail/context.hpp"
#include "duet/stackful/detail/guard_page.hpp"

namespace duet::fiber {

namespace {
// initial-exec: a direct %fs-relative load instead of a __tls_get_addr call on
// every yield and blocking call (libduet is loaded at start-up, not dlopen'ed
// late; glibc's static TLS reserve covers even that).
[[gnu::tls_model("initial-exec")]] thread_local Scheduler* current_scheduler = nullptr;
}

Scheduler::Scheduler(SchedulerOptions options)
    : loop_(options.backend, options.loop), pool_(options.stack_size, options.max_cached_stacks) {
  if (current_scheduler != nullptr) throw std::logic_error("duet: this thread already has a fiber scheduler");
  detail::install_guard_handler();
  alt_stack_ = detail::install_alt_stack();
  detail::tsan_capture_current(main_tsan_fiber_);  // this thread's own context: never destroyed
  current_scheduler = this;
}

Scheduler::~Scheduler() {
  if (live_ != 0) {
    std::fprintf(stderr, "duet: fiber scheduler destroyed with %zu fibers still alive; terminating\n", live_);
    std::terminate();
  }
  detail::remove_alt_stack(alt_stack_);
  current_scheduler = nullptr;
}

Scheduler* Scheduler::current() noexcept { return current_scheduler; }

void Scheduler::launch(detail::FiberRecord& fiber) {
  void* top = &fiber;  // the record sits at the top; the fiber's frames go below it
  fiber.sp_ = detail::make_context(top, &Scheduler::fiber_main, &fiber);
  fiber.valgrind_id_ = detail::valgrind_register(fiber.stack_.bottom(), fiber.stack_.top());
  detail::tsan_create_fiber(fiber.tsan_fiber_);
  fiber.state_ = detail::FiberState::ready;
  ++live_;
  ready_.push(fiber);
}

void Scheduler::run() { run_turns(nullptr); }

void Scheduler::run(std::stop_source stop) { run_turns(&stop); }

// stop == nullptr: loop_.stop() is ignored.
void Scheduler::run_turns(std::stop_source* stop) {
  if (running_ != nullptr) throw std::logic_error("duet: Scheduler::run called from a fiber");
  // Not "until nothing is in flight": ops nobody waits for (a worker's
  // eventfd read, a task left to its owner) would keep run() from returning.
  while (live_ != 0 || holds_ != 0) {
    if (stop != nullptr && loop_.stop_requested()) {
      loop_.reset_stop();
      stop->request_stop();  // here, on the scheduler's thread: I/O cancels must run there
    }
    run_ready();
    poll_io();
  }
  if (detached_error_) std::rethrow_exception(std::exchange(detached_error_, nullptr));
}

void Scheduler::run_ready() {
  // Only the fibers ready now: ones readied during this turn wait for the
  // next, after the I/O poll, so a yielding loop cannot starve I/O.
  for (std::size_t n = ready_.size(); n != 0; --n) {
    detail::FiberRecord* fiber = ready_.pop();
    if (fiber == nullptr) break;
    resume(*fiber);
  }
}

// What can wake a fiber is whatever makes the loop not idle (event_loop.hpp):
// an op in flight, a message queued, or a reply awaited from another thread
// (a task a fiber awaits may be away on another shard, with nothing in flight
// here until it comes back as a message).
void Scheduler::poll_io() {
  if (!ready_.empty()) {
    // Fibers are waiting to run: poll I/O and timers without blocking. With
    // nothing to poll, the system call would dominate a pure yield loop.
    if (!loop_.idle()) loop_.run_once();
  } else if (live_ == 0 && holds_ == 0) {
    return;  // nothing left that run() waits for: do not sleep on others' I/O
  } else if (!loop_.idle() && !(loop_.in_flight() == 0 && sim_reintroduces("fiber_hop_deadlock"))) {
    // (The second condition is test-only, and asked only when nothing is in
    // flight: this once looked at in_flight() alone, and a fiber awaiting a
    // task away on another shard was reported deadlocked, c0e2926.)
    loop_.run_once(EventLoop::forever);  // sleep in the kernel until a completion, message or deadline
  } else {
    // Nothing in flight, queued or awaited: no fiber, and no task a fiber
    // awaits, can be woken.
    throw std::logic_error("duet: every fiber is waiting and nothing can wake one (deadlock)");
  }
}

void Scheduler::resume(detail::FiberRecord& fiber) {
  fiber.state_ = detail::FiberState::running;
  running_ = &fiber;
  detail::asan_start_switch(&main_fake_stack_, fiber.stack_.bottom(), fiber.stack_.usable_size());
  detail::tsan_switch_to(fiber.tsan_fiber_);
  detail::switch_context_local(&main_sp_, fiber.sp_, nullptr);
  detail::asan_finish_switch(main_fake_stack_);
  running_ = nullptr;
  if (fiber.state_ == detail::FiberState::exited) {
    detail::tsan_destroy_fiber(fiber.tsan_fiber_);
    --live_;
    drop_ref(fiber);
  }
}

void Scheduler::switch_to_main(detail::FiberRecord& self) {
  detail::asan_start_switch(&self.asan_fake_stack_, main_stack_bottom_, main_stack_size_);
  detail::tsan_switch_to(main_tsan_fiber_);
  detail::switch_context_local(&self.sp_, main_sp_, nullptr);
  detail::asan_finish_switch(self.asan_fake_stack_, &main_stack_bottom_, &main_stack_size_);
}

void Scheduler::fiber_main(void* data, void* /*transfer*/) noexcept {
  auto& self = *static_cast<detail::FiberRecord*>(data);
  Scheduler& scheduler = *self.scheduler_;
  detail::asan_finish_switch(nullptr, &scheduler.main_stack_bottom_, &scheduler.main_stack_size_);
  self.execute();
  scheduler.exit_running();
}

void Scheduler::exit_running() noexcept {
  detail::FiberRecord& self = *running_;
  self.state_ = detail::FiberState::exited;
  if (self.joiner_ != nullptr) make_ready(*std::exchange(self.joiner_, nullptr));
  if (self.error_ && self.refs_ == 1) keep_error(self.error_);  // nobody will join it
  detail::asan_start_switch(nullptr, main_stack_bottom_, main_stack_size_);
  detail::tsan_switch_to(main_tsan_fiber_);
  detail::switch_context_local(&self.sp_, main_sp_, nullptr);
  __builtin_unreachable();  // the main context frees this stack and never resumes it
}

void Scheduler::yield() {
  detail::FiberRecord* self = running_;
  if (self == nullptr) return;  // the main context has nothing to yield to
  self->state_ = detail::FiberState::ready;
  ready_.push(*self);
  switch_to_main(*self);
}

void Scheduler::park() {
  detail::FiberRecord* self = running_;
  if (self == nullptr) throw std::logic_error("duet: a blocking fiber call was made outside any fiber");
  self->state_ = detail::FiberState::waiting;
  switch_to_main(*self);
}

void Scheduler::make_ready(detail::FiberRecord& fiber) noexcept {
  if (fiber.state_ != detail::FiberState::waiting) return;  // already ready or running
  fiber.state_ = detail::FiberState::ready;
  ready_.push(fiber);
}

void Scheduler::drop_ref(detail::FiberRecord& fiber) noexcept {
  if (--fiber.refs_ != 0) return;
  Stack stack = std::move(fiber.stack_);
  detail::valgrind_deregister(fiber.valgrind_id_);
  fiber.~FiberRecord();
  detail::asan_unpoison(stack.bottom(), stack.usable_size());
  pool_.release(std::move(stack));
}

void Scheduler::keep_error(std::exception_ptr error) noexcept {
  if (!detached_error_) detached_error_ = std::move(error);
}

namespace detail {

void wait_for_exit(FiberRecord& record) {
  Scheduler& scheduler = *record.scheduler_;
  if (record.state_ == FiberState::exited) return;
  FiberRecord* self = scheduler.running();
  if (self == nullptr) {
    scheduler.run_until([&] { return record.state_ == FiberState::exited; });
    return;
  }
  if (self == &record) throw std::logic_error("duet: a fiber cannot join itself");
  if (record.joiner_ != nullptr) throw std::logic_error("duet: a fiber can be joined only once");
  record.joiner_ = self;
  scheduler.park();
}

void drop_handle(FiberRecord& record) noexcept {
  Scheduler& scheduler = *record.scheduler_;
  if (record.state_ == FiberState::exited && record.error_ && !record.joined_) {
    scheduler.keep_error(record.error_);
  }
  scheduler.drop_ref(record);
}

}  // namespace detail

}  // namespace duet::fiber
