// duet::when_first_ok — run several tasks concurrently; the first to *succeed*
// wins, the others are stopped and waited for; if none succeeds, every
// failure is reported.
//
// Contract
// - when_any's shape and rules (task/when_any.hpp): the caller makes a
//   std::stop_source, builds every child with its token, and hands over the
//   source and the tasks; nothing starts until the returned task is awaited;
//   every child has finished before it returns (nothing outlives the call);
//   stopping is cooperative; the loop's thread only.
// - when_first_ok(source, std::vector<Task<T>>) and
//   when_first_ok(source, Task<T>, Task<T>...) (same T) -> Task<FirstOkResult<T>>;
//   when_first_ok(source, tasks, pred) decides success with pred(const T&).
// - Success (io/first_ok_result.hpp): no exception and, without a predicate,
//   an ok IoResult (any value, or none, for other types); with one, pred true.
//   The winner is the first child to succeed, in time: a refused connect that
//   ends first does not win. As it succeeds, source.request_stop() cancels
//   the rest, whose values and exceptions are dropped.
// - None succeeded: the result is not ok() and failures()[i] is child i's
//   failure (its exception, or the value that failed the test), in child
//   order; index()/value() on it throw duet::AllFailed listing them. Nothing
//   is thrown on that path unless you ask. A stop requested from outside
//   usually ends this way: every child fails with operation_canceled.
// - An empty range throws std::invalid_argument when awaited, as when_any.
// - A child that succeeds while the others are being started wins; the later
//   ones start already stopped.
// - Allocation: one array of result slots and one of child frames' handles
//   per call (and the failure list if none succeeded), nothing per child.
//
//   std::stop_source stop;   // take the first replica that accepts the connection
//   std::vector<duet::Task<duet::IoResult<duet::TcpStream>>> tries;
//   for (auto& addr : replicas) tries.push_back(connect(loop, addr, stop.get_token()));
//   auto r = co_await duet::when_first_ok(stop, std::move(tries));
//   if (r) use(r.index(), *std::move(r).value()); else for (auto& f : r.failures()) log(f.message());
#pragma once

#include <concepts>
#include <cstddef>
#include <exception>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/io/first_ok_result.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/when_any_latch.hpp"
#include "duet/task/task.hpp"
#include "duet/task/when_any.hpp"

namespace duet {

namespace detail {

// After a child ends: if its outcome passes `test`, claims the win (and with
// it stops the others). A test that throws turns the outcome into that exception.
template <typename T, typename Test>
void claim_if_succeeded(Result<T>& out, WhenAnyLatch& latch, std::size_t index, const Test& test) noexcept {
  if (out.has_exception()) return;
  try {
    bool succeeded = false;
    if constexpr (std::is_void_v<T>) {
      succeeded = test();
    } else {
      succeeded = static_cast<bool>(test(std::as_const(out.get())));
    }
    if (succeeded) latch.claim(index);
  } catch (...) {
    out.set_exception(std::current_exception());
  }
}

// Runs one child into `out` (as await_into does), then claims the win if it
// succeeded, before the child's frame ends: the winner still holds its count
// while its stop runs (see when_any_latch.hpp).
template <typename T, typename Test>
WhenAnyChild first_ok_child(Task<T> task, Result<T>& out, WhenAnyLatch& latch, std::size_t index,
                            const Test& test) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      out.set_value();
    } else {
      out.set_value(co_await std::move(task));
    }
  } catch (...) {
    out.set_exception(std::current_exception());
  }
  claim_if_succeeded(out, latch, index, test);
}

template <typename T>
FirstOkFailure<T> failure_of(Result<T>& result) {
  if (result.has_exception()) return FirstOkFailure<T>::thrown(result.exception());
  return FirstOkFailure<T>::returned(take_any<T>(result));
}

template <typename T, typename Test>
Task<FirstOkResult<T>> when_first_ok_range(std::stop_source stop, std::vector<Task<T>> tasks, Test test) {
  if (tasks.empty()) throw std::invalid_argument("duet: when_first_ok of no tasks has no winner");
  const std::size_t count = tasks.size();
  auto results = std::make_unique<Result<T>[]>(count);
  WhenAnyLatch latch(count, stop, WhenAnyLatch::Win::claimed);
  std::vector<WhenAnyChild> children;
  children.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    children.push_back(first_ok_child<T>(std::move(tasks[i]), results[i], latch, i, test));
  }
  co_await WhenAnyStart<decltype(children)>{children, latch};
  // Every child has finished.
  const std::size_t winner = latch.winner();
  if (winner != WhenAnyLatch::no_winner) {
    co_return FirstOkResult<T>(WhenAnyResult<T>{winner, take_any<T>(results[winner])});
  }
  std::vector<FirstOkFailure<T>> failures;
  failures.reserve(count);
  for (std::size_t i = 0; i < count; ++i) failures.push_back(failure_of<T>(results[i]));
  co_return FirstOkResult<T>(std::move(failures));
}

}  // namespace detail

template <typename T>
Task<FirstOkResult<T>> when_first_ok(std::stop_source stop, std::vector<Task<T>> tasks) {
  return detail::when_first_ok_range(std::move(stop), std::move(tasks), detail::SucceededByDefault{});
}

template <typename T, typename Pred>
  requires FirstOkPredicate<Pred, T>
Task<FirstOkResult<T>> when_first_ok(std::stop_source stop, std::vector<Task<T>> tasks, Pred pred) {
  return detail::when_first_ok_range(std::move(stop), std::move(tasks), std::move(pred));
}

// The same over a list of tasks of one type: when_first_ok(stop, connect(a), connect(b)).
template <typename T, typename... Rest>
  requires(std::same_as<Rest, Task<T>> && ...)
Task<FirstOkResult<T>> when_first_ok(std::stop_source stop, Task<T> first, Rest... rest) {
  std::vector<Task<T>> tasks;
  tasks.reserve(1 + sizeof...(Rest));
  tasks.push_back(std::move(first));
  (tasks.push_back(std::move(rest)), ...);
  return when_first_ok(std::move(stop), std::move(tasks));
}

}  // namespace duet
