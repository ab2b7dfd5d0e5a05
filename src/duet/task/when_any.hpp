// duet::when_any — run several tasks concurrently; the first to finish wins,
// the others are stopped and waited for.
//
// Contract
// - The caller makes a std::stop_source, builds every child with its token
//   (passing it on to the child's I/O, sleeps, waits), and hands when_any the
//   source and the tasks (the shape of libcoro's when_any(stop_source, tasks)).
//   A task cannot be handed a token after it was made, and duet's Task has no
//   ambient environment to carry one (P2300's get_stop_token), so the token
//   travels the way TaskScope::stop_token() does: explicitly.
// - Variadic form: when_any(source, Task<A>, Task<B>, ...) ->
//   Task<std::variant<A, B, ...>>; the variant's index() is the winner's
//   position, even when two alternatives have the same type.
//   Range form: when_any(source, std::vector<Task<T>>) -> Task<WhenAnyResult<T>>
//   = {index, value}. In both, void becomes std::monostate and a reference
//   std::reference_wrapper.
// - The winner is the first child to *finish*, with a value or an exception.
//   As it finishes, when_any calls source.request_stop(), then waits until
//   every other child has finished too, so nothing started here outlives the
//   call (no I/O in flight, no frame left). A child that ignores its token
//   makes when_any wait for it: stopping is cooperative.
// - Exceptions: the winner's is rethrown; the losers' results and exceptions
//   are dropped (after the stop, "cancelled" is the expected way for a loser
//   to end, and only one outcome can be returned).
// - Cancelling from outside: source.request_stop() (or a std::stop_callback on
//   the caller's own token that calls it) stops every child; the first of them
//   to finish, typically with operation_canceled, is still the winner.
// - An empty vector throws std::invalid_argument when awaited.
// - A call without the stop_source first, or with something that is not a
//   Task, is refused by a static_assert that says what to write.
// - Lazy like any Task: nothing starts until the returned task is awaited;
//   then the children start in order on the awaiting thread. A child that
//   finishes during that start wins, and the later ones start already stopped.
// - Threads: the loop's thread. The winner's request_stop() runs the losers'
//   stop callbacks (I/O cancels) where the winner finishes, and I/O stops must
//   be requested on the loop's thread. The source is taken by value: copies of
//   a std::stop_source share one stop state.
// - Allocation: the children run in frames from this thread's FramePool; the
//   range form allocates one array of result slots and one of child frames'
//   handles per call, nothing per child.
//
//   std::stop_source stop;   // fetch(conn, token) -> Task<Reply>, passing token to its I/O
//   auto r = co_await duet::when_any(stop, fetch(primary, stop.get_token()), fetch(replica, stop.get_token()));
//   Reply reply = r.index() == 0 ? std::get<0>(std::move(r)) : std::get<1>(std::move(r));
//   auto [i, v] = co_await duet::when_any(stop2, std::move(tasks));   // vector form
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "duet/io/when_any_result.hpp"
#include "duet/task/detail/await_into.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/when_any_latch.hpp"
#include "duet/task/task.hpp"

namespace duet {

namespace detail {

template <typename T>
WhenAnyValue<T> take_any(Result<T>& result) {
  if constexpr (std::is_void_v<T>) {
    result.get();
    return {};
  } else if constexpr (std::is_reference_v<T>) {
    return std::ref(result.get());
  } else {
    return std::move(result).get();
  }
}

template <typename... Ts, std::size_t... I>
Task<std::variant<WhenAnyValue<Ts>...>> when_any_tuple(std::index_sequence<I...>, std::stop_source stop,
                                                       Task<Ts>... tasks) {
  std::tuple<Result<Ts>...> results;
  WhenAnyLatch latch(sizeof...(Ts), stop);
  std::array<WhenAnyChild, sizeof...(Ts)> children{
      await_into<WhenAnyChild, Ts>(std::move(tasks), std::get<I>(results))...};
  co_await WhenAnyStart<decltype(children)>{children, latch};
  // Every child has finished; only the winner's outcome leaves this frame.
  const std::size_t winner = latch.winner();
  std::optional<std::variant<WhenAnyValue<Ts>...>> out;
  (void)((winner == I && (out.emplace(std::in_place_index<I>, take_any<Ts>(std::get<I>(results))), true)) ||
         ...);
  co_return std::move(*out);
}

}  // namespace detail

template <typename... Ts>
Task<std::variant<WhenAnyValue<Ts>...>> when_any(std::stop_source stop, Task<Ts>... tasks) {
  static_assert(sizeof...(Ts) > 0, "when_any needs at least one task");
  return detail::when_any_tuple(std::index_sequence_for<Ts...>{}, std::move(stop), std::move(tasks)...);
}

template <typename T>
Task<WhenAnyResult<T>> when_any(std::stop_source stop, std::vector<Task<T>> tasks) {
  if (tasks.empty()) throw std::invalid_argument("duet: when_any of no tasks has no winner");
  const std::size_t count = tasks.size();
  auto results = std::make_unique<detail::Result<T>[]>(count);
  detail::WhenAnyLatch latch(count, stop);
  std::vector<detail::WhenAnyChild> children;
  children.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    children.push_back(detail::await_into<detail::WhenAnyChild, T>(std::move(tasks[i]), results[i]));
  }
  co_await detail::WhenAnyStart<decltype(children)>{children, latch};
  const std::size_t winner = latch.winner();
  co_return WhenAnyResult<T>{winner, detail::take_any<T>(results[winner])};
}

// Every other call: one message instead of a failed deduction.
template <typename First, typename... Rest>
  requires(!std::is_same_v<std::remove_cvref_t<First>, std::stop_source> ||
           (!(detail::is_task<std::remove_cvref_t<Rest>> && ...) &&
            !(sizeof...(Rest) == 1 && (detail::is_task_vector<std::remove_cvref_t<Rest>> && ...))))
detail::RefusedAwaiter when_any(First&&, Rest&&...) {
  if constexpr (!std::is_same_v<std::remove_cvref_t<First>, std::stop_source>) {
    static_assert(detail::always_false<First>,
                  "duet: when_any's first argument is a std::stop_source: make one, build each task with "
                  "stop.get_token(), and call when_any(stop, a(stop.get_token()), b(stop.get_token()))");
  } else {
    static_assert(detail::always_false<First>,
                  "duet: when_any(stop, ...) takes Tasks built with stop.get_token(), or one "
                  "std::vector<Task<T>>; await an awaiter in a Task-returning function first");
  }
  return {};
}

}  // namespace duet
