// duet::run_on_fiber(scheduler, f, args...) — stackless code runs a function on
// a fiber and co_awaits its result (e.g. a blocking library through the hooks).
//
// Contract
// - Returns an awaiter; nothing happens until it is co_awaited (once). Then f
//   and args (copied or moved, as Scheduler::spawn does) go onto a new fiber of
//   `scheduler`, which starts at its next turn, and the awaiting task suspends.
//   co_await gives f's value (moved), reference or nothing, or rethrows what f
//   threw. Throws std::system_error from co_await when no stack can be had.
// - The awaiting task must run on scheduler.loop() and the scheduler must be
//   running (run(), a join, or fiber::await from a fiber): it runs the fiber and
//   polls the loop. The task resumes on the scheduler's main context, in the
//   loop turn after the fiber ends (a nop op carries the result back), never on
//   the fiber's stack, so task code after the co_await is not hooked.
// - Destroying the awaiting task while the fiber still runs detaches the fiber:
//   it runs to its end, its value is dropped, and an exception it throws is
//   rethrown by Scheduler::run like any detached fiber's. No use-after-free
//   either way: the result slot is shared by the two and freed by whichever
//   ends last. To end it sooner, let f take a std::stop_token first,
//   f(token, args...): that token is stopped when the awaiting task goes away,
//   so the fiber's blocking calls given it return at once (operation_canceled).
// - GCC 12 miscompiles a lambda with non-trivial captures (std::string,
//   unique_ptr) written inside a co_await expression: it relocates the closure
//   bitwise, and the copies' destructors free what they should not. Pass such
//   values as args (run_on_fiber(s, f, std::move(str))), or name the lambda
//   first and move it in; captures by reference or of scalars are safe.
// - One heap allocation per call (the shared slot) besides the fiber's pooled stack.
// - Thread: the scheduler's. Here the stackless layer includes the stackful one:
//   this header is the bridge, not part of src/duet/task's core.
//
//   duet::Task<std::string> get(duet::fiber::Scheduler& s, std::string key) {
//     co_return co_await duet::run_on_fiber(s, [&] { return blocking_client_get(key); });
//   }
#pragma once

#include <coroutine>
#include <exception>
#include <functional>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"

namespace duet {

namespace detail {

// The slot an awaiter (in the task's frame) and its fiber share. It is a nop
// IoOp: the fiber submits it when done, and its completion, on the loop's main
// context, resumes the task. Reference-counted because either side may end first.
class FiberCallLink : public IoOp {
 public:
  explicit FiberCallLink(fiber::Scheduler& scheduler) noexcept;
  FiberCallLink(const FiberCallLink&) = delete;
  FiberCallLink& operator=(const FiberCallLink&) = delete;
  virtual ~FiberCallLink() = default;

  void wait(std::coroutine_handle<> waiter) noexcept { waiter_ = waiter; }
  // Only calls whose f takes a token pay for a stop state (an allocation).
  void enable_stop() { stop_ = std::stop_source(); }
  [[nodiscard]] std::stop_token stop_token() const noexcept { return stop_.get_token(); }
  // The fiber is spawned: it shares the slot, and the scheduler's run() holds
  // on until the task has its result (or is gone), across the turn between the
  // fiber's end and the nop's completion, when no fiber is alive.
  void add_fiber() noexcept;
  // Fiber side, f has ended: resume the waiter next turn, or (awaiter gone)
  // hand back the error so the fiber rethrows it as a detached fiber's.
  [[nodiscard]] std::exception_ptr fiber_finished(std::exception_ptr error) noexcept;
  // Awaiter side, on its destruction: stop a fiber still running, abandon the
  // nop if it is in flight.
  void awaiter_gone() noexcept;

 private:
  static void on_done(IoOp* op, int res) noexcept;
  void drop() noexcept;
  void release_hold() noexcept;

  fiber::Scheduler* scheduler_;
  EventLoop* loop_;
  std::coroutine_handle<> waiter_;
  std::stop_source stop_{std::nostopstate};
  unsigned refs_ = 1;
  bool awaiter_gone_ = false;
  bool holding_ = false;
};

template <typename R>
class FiberCallState final : public FiberCallLink {
 public:
  using FiberCallLink::FiberCallLink;
  Result<R> result_;
};

// The fiber's body: run f, store its outcome, then let go of the slot. The
// catch block only stores (never switch inside a catch).
template <typename R, typename Fn>
struct FiberCallBody {
  FiberCallState<R>* state_;
  Fn fn_;
  void operator()() {
    duet::detail::capture_into(state_->result_, [this]() -> R { return fn_(state_->stop_token()); });
    std::exception_ptr error = state_->result_.exception();
    if (auto orphan = std::exchange(state_, nullptr)->fiber_finished(std::move(error))) {
      std::rethrow_exception(orphan);
    }
  }
};

template <typename R, typename Fn, bool Stop>
class [[nodiscard]] FiberCall {
 public:
  FiberCall(fiber::Scheduler& scheduler, Fn fn) : scheduler_(&scheduler), fn_(std::move(fn)) {}
  FiberCall(const FiberCall&) = delete;
  FiberCall& operator=(const FiberCall&) = delete;
  ~FiberCall() {
    if (state_ != nullptr) state_->awaiter_gone();
  }

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> waiter) {
    state_ = new FiberCallState<R>(*scheduler_);
    state_->wait(waiter);
    if constexpr (Stop) state_->enable_stop();  // may throw: state_ stays ours
    scheduler_->spawn(FiberCallBody<R, Fn>{state_, std::move(fn_)}).detach();  // may throw: state_ stays ours
    state_->add_fiber();
  }
  R await_resume() { return take_result(state_->result_); }

 private:
  fiber::Scheduler* scheduler_;
  Fn fn_;
  FiberCallState<R>* state_ = nullptr;
};

// What f returns, called with a stop token first when it takes one.
template <typename F, typename... Args>
struct FiberCallResult {
  static constexpr bool takes_stop = false;
  using type = std::invoke_result_t<F, Args...>;
};
template <typename F, typename... Args>
  requires std::is_invocable_v<F, std::stop_token, Args...>
struct FiberCallResult<F, Args...> {
  static constexpr bool takes_stop = true;
  using type = std::invoke_result_t<F, std::stop_token, Args...>;
};

}  // namespace detail

template <typename F, typename... Args>
auto run_on_fiber(fiber::Scheduler& scheduler, F&& f, Args&&... args) {
  using Call = detail::FiberCallResult<std::decay_t<F>, std::decay_t<Args>...>;
  using R = typename Call::type;
  auto fn = [f = std::forward<F>(f), bound = std::make_tuple(std::forward<Args>(args)...)](
                std::stop_token token) mutable -> R {
    return std::apply(
        [&](auto&&... a) -> R {
          if constexpr (Call::takes_stop) {
            return std::invoke(std::move(f), std::move(token), std::forward<decltype(a)>(a)...);
          } else {
            return std::invoke(std::move(f), std::forward<decltype(a)>(a)...);
          }
        },
        std::move(bound));
  };
  return detail::FiberCall<R, decltype(fn), Call::takes_stop>(scheduler, std::move(fn));
}

}  // namespace duet
