// duet::with_timeout / with_deadline — give an I/O call, a wait, or a whole
// task (a group under when_all, ...) a deadline.
//
// Contract
// - with_timeout(awaiter, d): one I/O call or one primitive's wait.
//   * Every awaiter derived from IoAwaiter (recv, send, send_all, accept,
//     connect, ...): the timeout travels with the operation into the backend
//     (IORING_OP_LINK_TIMEOUT on io_uring, the timer heap on epoll); when it
//     expires the op is cancelled in the kernel and the result is
//     std::errc::timed_out. For send_all it bounds the whole transfer.
//   * The waits of Event, Latch, Mutex and Semaphore: a sleep op in the loop's
//     timer withdraws the waiter from the primitive's queue when it fires
//     (same std::errc::timed_out).
//   * Takes the awaiter as the prvalue the call returned and keeps only a
//     reference: use it inside one co_await expression.
// - with_timeout(stop, work, d) / with_deadline(stop, work, time_point): any
//   Task or awaitable, built with stop.get_token() passed on to its I/O.
//   The shape and the rules of when_any(stop, work, sleep) (task/when_any.hpp),
//   whose machinery it uses: the work and a sleep race; the first to finish
//   calls stop.request_stop(), and the call returns only when the work has
//   finished too (no I/O in flight, no frame left). A work that ignores its
//   token makes it wait: stopping is cooperative.
//   * Gives Task<TimeoutResult<T>> (io/timeout_result.hpp): the work's value,
//     or timed_out() / error() == std::errc::timed_out when the deadline came
//     first; then the work's own result, value or exception, is dropped.
//   * An exception the work throws before the deadline is rethrown.
//   * A stop requested from outside (stop.request_stop()) stops the work; the
//     result is then the work's own (e.g. its operation_canceled), not timed_out.
//   * A zero or past deadline: the work still starts; if it finishes without
//     waiting its value is returned, else it is stopped at once (timed_out).
//   * The sleep runs on `loop`, or on EventLoop::current() (this thread's
//     first loop; none: std::logic_error at the call).
//   * A Task or movable awaitable is moved into the returned task; an awaiter
//     that cannot move (sock.recv(buf, token)) is held by reference: await
//     the result in the same co_await expression.
//   * Allocation: what when_any of two tasks costs (the race's frame and two
//     child frames, from this thread's FramePool).
// - Wrong calls (an lvalue awaiter, a Task without its stop_source, something
//   not awaitable) are refused by a static_assert that says what to write.
// - Threads: the loop's thread, as every awaiter.
//
//   auto r = co_await duet::with_timeout(sock.recv(buf), 500ms);
//   if (r.error() == std::errc::timed_out) { ... }
//   std::stop_source stop;
//   auto all = co_await duet::with_timeout(stop, duet::when_all(a(stop.get_token()), b(stop.get_token())), 1s);
//   if (all.timed_out()) { ... }   // a and b were stopped and have finished
#pragma once

#include <chrono>
#include <concepts>
#include <coroutine>
#include <stdexcept>
#include <stop_token>
#include <type_traits>

#include "duet/io/clock.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/timeout_result.hpp"
#include "duet/task/detail/awaitable.hpp"
#include "duet/task/detail/sync_awaiter.hpp"
#include "duet/task/detail/timeout_race.hpp"
#include "duet/task/io_awaiter.hpp"
#include "duet/task/task.hpp"

namespace duet {

// An I/O awaiter, or a coordination primitive's wait (task/detail/sync_awaiter.hpp).
template <typename Awaiter>
concept TimeoutAwaitable = std::derived_from<Awaiter, IoAwaiter> || std::derived_from<Awaiter, detail::SyncAwaiter>;

template <typename Awaiter>
  requires TimeoutAwaitable<Awaiter>
class TimeoutAwaiter {
 public:
  explicit TimeoutAwaiter(Awaiter& inner) noexcept : inner_(&inner) {}
  bool await_ready() noexcept { return inner_->await_ready(); }
  auto await_suspend(std::coroutine_handle<> waiter) noexcept { return inner_->await_suspend(waiter); }
  decltype(auto) await_resume() noexcept { return inner_->await_resume(); }

 private:
  Awaiter* inner_;
};

// Unconstrained on purpose: a constraint would refuse a wrong call with a page
// of "constraints not satisfied" before these messages could say what to do.
template <typename Awaiter, typename Rep, typename Period>
auto with_timeout(Awaiter&& awaiter, std::chrono::duration<Rep, Period> timeout) noexcept {
  using A = std::remove_cvref_t<Awaiter>;
  if constexpr (detail::is_task<A> || (!TimeoutAwaitable<A> && Awaitable<Awaiter>)) {
    static_assert(detail::always_false<A>,
                  "duet: with_timeout(awaiter, d) takes one I/O call or wait; for a Task or another awaitable, "
                  "make a std::stop_source, build the work with stop.get_token() and write "
                  "with_timeout(stop, std::move(work), d)");
    return detail::RefusedAwaiter{};
  } else if constexpr (!TimeoutAwaitable<A>) {
    static_assert(detail::always_false<A>,
                  "duet: with_timeout(awaiter, d) takes an I/O call (sock.recv(buf), accept(), ...) or a "
                  "primitive's wait (event.wait(), ...); this argument is not awaitable");
    return detail::RefusedAwaiter{};
  } else if constexpr (std::is_lvalue_reference_v<Awaiter>) {
    static_assert(detail::always_false<A>,
                  "duet: pass the awaiter straight from the call: co_await with_timeout(sock.recv(buf), d), "
                  "not a named awaiter variable");
    return detail::RefusedAwaiter{};
  } else {
    // A zero or negative timeout means "already expired": make it the shortest one.
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
    awaiter.set_timeout(ns.count() > 0 ? ns : std::chrono::nanoseconds{1});
    return TimeoutAwaiter<A>(awaiter);
  }
}

namespace detail {

// with_deadline's checks, then the race. Unconstrained for the reason above.
template <typename Source, typename Work>
auto deadline_race(EventLoop& loop, Source&& stop, Work&& work, std::chrono::steady_clock::time_point deadline) {
  using W = std::remove_cvref_t<Work>;
  if constexpr (!std::is_same_v<std::remove_cvref_t<Source>, std::stop_source>) {
    static_assert(always_false<Source>,
                  "duet: with_timeout(stop, work, d)'s first argument is the std::stop_source whose tokens the "
                  "work was built with (a token cannot stop anything)");
    return RefusedAwaiter{};
  } else if constexpr (!Awaitable<Work>) {
    static_assert(always_false<W>,
                  "duet: with_timeout(stop, work, d) takes a Task or an awaitable built with stop.get_token(); "
                  "this argument is not awaitable");
    return RefusedAwaiter{};
  } else if constexpr (std::is_lvalue_reference_v<Work>) {
    static_assert(always_false<W>,
                  "duet: hand the work over as an rvalue: with_timeout(stop, std::move(task), d), or the call "
                  "itself: with_timeout(stop, fetch(stop.get_token()), d)");
    return RefusedAwaiter{};
  } else {
    return race_deadline<RaceValue<Work>, RaceHold<Work>>(loop, stop, static_cast<Work&&>(work), deadline);
  }
}

inline EventLoop& current_loop_for_deadline() {
  EventLoop* loop = EventLoop::current();
  if (loop == nullptr) throw std::logic_error("duet: with_timeout(stop, work, d) on a thread without an EventLoop");
  return *loop;
}

}  // namespace detail

template <typename Source, typename Work>
auto with_deadline(EventLoop& loop, Source&& stop, Work&& work, std::chrono::steady_clock::time_point deadline) {
  return detail::deadline_race(loop, static_cast<Source&&>(stop), static_cast<Work&&>(work), deadline);
}

template <typename Source, typename Work>
auto with_deadline(Source&& stop, Work&& work, std::chrono::steady_clock::time_point deadline) {
  return detail::deadline_race(detail::current_loop_for_deadline(), static_cast<Source&&>(stop),
                               static_cast<Work&&>(work), deadline);
}

template <typename Source, typename Work, typename Rep, typename Period>
auto with_timeout(EventLoop& loop, Source&& stop, Work&& work, std::chrono::duration<Rep, Period> timeout) {
  return detail::deadline_race(loop, static_cast<Source&&>(stop), static_cast<Work&&>(work),
                               detail::deadline_after(timeout));
}

template <typename Source, typename Work, typename Rep, typename Period>
auto with_timeout(Source&& stop, Work&& work, std::chrono::duration<Rep, Period> timeout) {
  return duet::with_timeout(detail::current_loop_for_deadline(), static_cast<Source&&>(stop), static_cast<Work&&>(work),
                      timeout);
}

}  // namespace duet
