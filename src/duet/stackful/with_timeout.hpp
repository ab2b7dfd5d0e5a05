// duet::fiber::with_timeout / with_deadline — a deadline over a whole piece of
// fiber code (several calls, a group under fiber::when_any, ...).
//
// Contract
// - with_timeout(fn, d) / with_deadline(fn, time_point): calls fn(std::stop_token)
//   on a fiber of its own, as fiber::when_any(fn, sleep) would, whose machinery
//   it uses (stackful/when_any.hpp): fn and a sleep until the deadline race;
//   the first to finish stops the token fn was given (cancelling its I/O) and
//   the call returns only when fn's fiber has finished too. A fn that ignores
//   its token keeps it waiting: stopping is cooperative.
// - Gives TimeoutResult<R> (io/timeout_result.hpp), R = fn's return type: its
//   value, or timed_out() / error() == std::errc::timed_out when the deadline
//   came first; then fn's own result, value or exception, is dropped. The
//   stackless duet::with_timeout(stop, task, d) has the same rules and result.
// - An exception fn throws before the deadline is rethrown.
// - with_timeout(token, fn, d): the caller's own token; a stop requested on it
//   stops fn, and the result is then fn's own (e.g. its operation_canceled),
//   not timed_out.
// - A zero or past deadline: fn still starts; if it returns without blocking
//   its value is returned, else it is stopped at once (timed_out).
// - Per call: two fibers (fn's and the sleep's, stacks from the scheduler's
//   pool), as fiber::when_any of two. Blocks the calling fiber only; outside a
//   fiber, on the scheduler's thread, it drives the scheduler. No scheduler:
//   std::logic_error. The scheduler's thread only.
// - The short-timeout form of a single call stays that call's own overload
//   (conn.recv(buf, 100ms)): cheaper, no fiber.
//
//   auto r = duet::fiber::with_timeout([&](std::stop_token t) { return fetch_both(a, b, t); }, 1s);
//   if (r.timed_out()) return;   // fetch_both was stopped and its fiber joined
//   use(*r);
#pragma once

#include <chrono>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "duet/io/clock.hpp"
#include "duet/io/timeout_result.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/when_any.hpp"

namespace duet::fiber {

using duet::TimeoutResult;  // the same type as the stackless with_timeout's

namespace detail {

// fn's fiber (index 0) races a sleeping fiber (index 1) on one WhenAnyState.
template <typename F>
TimeoutResult<WhenAnyReturn<F>> race_deadline(std::stop_token outer, F&& fn,
                                              std::chrono::steady_clock::time_point deadline) {
  using R = WhenAnyReturn<F>;
  WhenAnyState state(std::move(outer));
  bool reached = false;  // false: the sleep was cut short by a stop, not the deadline
  Fiber<R> work;
  Fiber<void> timer;
  try {
    work = spawn_child(state, 0, std::forward<F>(fn));
    timer = spawn_child(state, 1, [deadline, &reached](std::stop_token t) { reached = sleep_until(deadline, t); });
  } catch (...) {
    state.request_stop();
    join_loser(work);
    join_loser(timer);
    throw;
  }
  const std::size_t winner = state.wait_for_winner(2);
  join_loser(timer);
  if (winner == 1 && reached) {
    join_loser(work);
    return TimeoutResult<R>::expired();
  }
  return TimeoutResult<R>(join_value(work));
}

// One message for a callable of the wrong shape, instead of a failed constraint.
template <typename F>
constexpr bool check_callable() {
  static_assert(std::is_invocable_v<std::decay_t<F>&, std::stop_token>,
                "duet: fiber::with_timeout calls fn(std::stop_token) on a fiber: give the callable a "
                "std::stop_token parameter and pass it on to its blocking calls");
  return std::is_invocable_v<std::decay_t<F>&, std::stop_token>;
}

}  // namespace detail

template <typename F>
auto with_deadline(std::stop_token outer, F&& fn, std::chrono::steady_clock::time_point deadline) {
  if constexpr (detail::check_callable<F>()) {
    return detail::race_deadline(std::move(outer), std::forward<F>(fn), deadline);
  }
}

template <typename F>
auto with_deadline(F&& fn, std::chrono::steady_clock::time_point deadline) {
  return fiber::with_deadline(std::stop_token{}, std::forward<F>(fn), deadline);
}

template <typename F, typename Rep, typename Period>
auto with_timeout(std::stop_token outer, F&& fn, std::chrono::duration<Rep, Period> timeout) {
  return fiber::with_deadline(std::move(outer), std::forward<F>(fn), duet::detail::deadline_after(timeout));
}

template <typename F, typename Rep, typename Period>
auto with_timeout(F&& fn, std::chrono::duration<Rep, Period> timeout) {
  return fiber::with_timeout(std::stop_token{}, std::forward<F>(fn), timeout);
}

}  // namespace duet::fiber
