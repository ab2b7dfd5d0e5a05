// Machinery for with_timeout / with_deadline over a whole Task or awaitable:
// when_any's latch and child frames (detail/when_any_latch.hpp) racing the
// work against a sleep until the deadline, on one std::stop_source.
//
// Two children, as in when_any(stop, work, sleep): the first to finish asks the
// source to stop, which cancels the other's I/O or the sleep, and the race's
// frame resumes only when both have finished. The sleep reports whether it
// reached the deadline: only then is the result "timed out". If it was cut
// short instead (a stop requested from outside), the work's own outcome is
// returned, so an outside cancel reads as the work's operation_canceled.
// Frames: the race's own Task and the two children, all from this thread's
// FramePool, as when_any of two tasks.
#pragma once

#include <array>
#include <chrono>
#include <exception>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/io/timeout_result.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/when_any_latch.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/when_any.hpp"

namespace duet::detail {

// The work's side: awaits the awaitable (a by-value A was moved into this
// frame; a reference A refers to the caller's temporary) into `out`.
template <typename Runner, typename T, typename A>
Runner await_awaitable_into(A awaitable, Result<T>& out) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await static_cast<A&&>(awaitable);
      out.set_value();
    } else {
      out.set_value(co_await static_cast<A&&>(awaitable));
    }
  } catch (...) {
    out.set_exception(std::current_exception());
  }
}

// The deadline's side: `reached` is false when the stop cut the sleep short.
template <typename Runner>
Runner sleep_into(EventLoop& loop, std::chrono::steady_clock::time_point deadline, std::stop_token token,
                  bool& reached) {
  reached = co_await sleep_until(loop, deadline, std::move(token));
}

template <typename T, typename A>
Task<TimeoutResult<T>> race_deadline(EventLoop& loop, std::stop_source stop, A awaitable,
                                     std::chrono::steady_clock::time_point deadline) {
  Result<T> result;
  bool reached = false;
  WhenAnyLatch latch(2, stop);
  std::array<WhenAnyChild, 2> children{
      await_awaitable_into<WhenAnyChild, T, A>(static_cast<A&&>(awaitable), result),
      sleep_into<WhenAnyChild>(loop, deadline, stop.get_token(), reached)};
  co_await WhenAnyStart<decltype(children)>{children, latch};
  // Both children have finished: the work's result (or exception) is final.
  if (latch.winner() == 1 && reached) co_return TimeoutResult<T>::expired();
  co_return TimeoutResult<T>(take_any<T>(result));
}

// The value type of awaiting an A: an rvalue reference result is taken by value.
template <typename A>
using RaceValue = std::conditional_t<std::is_rvalue_reference_v<AwaitResult<A>>,
                                     std::remove_reference_t<AwaitResult<A>>, AwaitResult<A>>;

// How the race holds the awaitable: moved into its frame when it can move (a
// Task, most awaitables), else by reference to the caller's temporary (an I/O
// awaiter, which the kernel may hold by address).
template <typename A>
using RaceHold = std::conditional_t<std::is_move_constructible_v<std::remove_cvref_t<A>>,
                                    std::remove_cvref_t<A>, std::remove_reference_t<A>&&>;

}  // namespace duet::detail
