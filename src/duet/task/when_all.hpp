// duet::when_all — run several tasks concurrently and collect every result.
//
// Contract
// - Variadic form: when_all(Task<A>, Task<B>, ...) -> Task<std::tuple<A, B, ...>>
//   (void results become std::monostate; references stay references).
// - Range form: when_all(std::vector<Task<T>>) -> Task<std::vector<T>>
//   (Task<void> for void; references become std::reference_wrapper).
// - Results come back in argument order, whatever order the tasks finish in.
// - Always waits for every task. If any threw, the first exception in argument
//   order is rethrown after all have finished; the other results are dropped.
// - Anything but Tasks (an awaiter, a callable) is refused by a static_assert
//   that says what to write.
// - Lazy like any Task: nothing starts until the returned task is awaited;
//   then the children start in order on the awaiting thread.
//
//   auto [a, b] = co_await duet::when_all(fetch(1), fetch(2));
//   std::vector<int> all = co_await duet::when_all(std::move(many_tasks));
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "duet/task/detail/result.hpp"
#include "duet/task/detail/when_all_latch.hpp"
#include "duet/task/task.hpp"

namespace duet {

template <typename T>
using WhenAllValue = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

namespace detail {

template <typename T>
WhenAllValue<T> take(Result<T>& result) {
  if constexpr (std::is_void_v<T>) {
    result.get();
    return {};
  } else if constexpr (std::is_reference_v<T>) {
    return result.get();
  } else {
    return std::move(result).get();
  }
}

template <typename... Ts, std::size_t... I>
Task<std::tuple<WhenAllValue<Ts>...>> when_all_tuple(std::index_sequence<I...>, Task<Ts>... tasks) {
  std::tuple<Result<Ts>...> results;
  WhenAllLatch latch(sizeof...(Ts));
  std::array<WhenAllChild, sizeof...(Ts)> children{
      await_into<WhenAllChild, Ts>(std::move(tasks), std::get<I>(results))...};
  co_await WhenAllStart<decltype(children)>{children, latch};
  // Rethrow the first failure in argument order; every child has finished.
  (std::get<I>(results).get(), ...);
  co_return std::tuple<WhenAllValue<Ts>...>{take<Ts>(std::get<I>(results))...};
}

}  // namespace detail

template <typename... Ts>
Task<std::tuple<WhenAllValue<Ts>...>> when_all(Task<Ts>... tasks) {
  return detail::when_all_tuple(std::index_sequence_for<Ts...>{}, std::move(tasks)...);
}

template <typename T>
auto when_all(std::vector<Task<T>> tasks)
    -> Task<std::conditional_t<std::is_void_v<T>, void,
                               std::vector<std::conditional_t<std::is_reference_v<T>,
                                                              std::reference_wrapper<std::remove_reference_t<T>>,
                                                              WhenAllValue<T>>>>> {
  const std::size_t count = tasks.size();
  auto results = std::make_unique<detail::Result<T>[]>(count);
  detail::WhenAllLatch latch(count);
  std::vector<detail::WhenAllChild> children;
  children.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    children.push_back(detail::await_into<detail::WhenAllChild, T>(std::move(tasks[i]), results[i]));
  }
  co_await detail::WhenAllStart<decltype(children)>{children, latch};
  for (std::size_t i = 0; i < count; ++i) results[i].get();  // first failure wins
  if constexpr (!std::is_void_v<T>) {
    std::vector<std::conditional_t<std::is_reference_v<T>,
                                   std::reference_wrapper<std::remove_reference_t<T>>, WhenAllValue<T>>>
        values;
    values.reserve(count);
    for (std::size_t i = 0; i < count; ++i) values.push_back(detail::take<T>(results[i]));
    co_return values;
  }
}

// Not Tasks (nor one vector of them): one message instead of a failed deduction.
template <typename... As>
  requires(!(detail::is_task<std::remove_cvref_t<As>> && ...) &&
           !(sizeof...(As) == 1 && (detail::is_task_vector<std::remove_cvref_t<As>> && ...)))
detail::RefusedAwaiter when_all(As&&...) {
  static_assert(detail::always_false<As...>,
                "duet: when_all takes Tasks, when_all(a(), b()), or one std::vector<Task<T>>; to run an awaiter "
                "(sock.recv(buf), sleep_for, ...) in a group, await it in a Task-returning function first");
  return {};
}

}  // namespace duet
