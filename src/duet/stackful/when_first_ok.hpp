// duet::fiber::when_first_ok — run callables on fibers; the first to *succeed*
// wins, the others are stopped and joined; if none succeeds, every failure is
// reported.
//
// Contract
// - fiber::when_any's shape and rules (stackful/when_any.hpp): each fn is
//   called as fn(std::stop_token) on a new fiber of the current scheduler,
//   with tokens from one source when_first_ok owns; an optional first
//   std::stop_token of the caller's stops them all too; every fiber is joined
//   before it returns; blocks the calling fiber (or drives the scheduler off
//   any fiber); the scheduler's thread only.
// - when_first_ok(fns...) (every fn returning the same R) and
//   when_first_ok(std::vector<F>) -> FirstOkResult<R>;
//   when_first_ok(std::vector<F>, pred) decides success with pred(const R&).
// - Success, the result and the failure list are those of the stackless
//   duet::when_first_ok (io/first_ok_result.hpp): no exception and an ok
//   IoResult (without a predicate) or pred true; the first fiber to succeed,
//   in time, wins, and the source is stopped as it does; the others' values
//   and exceptions are dropped. If none succeeds, failures()[i] is fiber i's
//   failure, in order; index()/value() then throw duet::AllFailed.
// - An empty vector throws std::invalid_argument; a spawn that fails (no
//   stack) stops and joins the fibers already started, then rethrows.
//
//   std::vector<std::function<duet::IoResult<duet::fiber::TcpStream>(std::stop_token)>> tries;
//   for (auto& addr : replicas)   // take the first replica that accepts the connection
//     tries.emplace_back([&addr](std::stop_token t) { return duet::fiber::TcpStream::connect(addr, t); });
//   auto r = duet::fiber::when_first_ok(std::move(tries));
//   if (r) use(r.index(), *std::move(r).value()); else for (auto& f : r.failures()) log(f.message());
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/io/first_ok_result.hpp"
#include "duet/stackful/fiber.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/when_any.hpp"

namespace duet::fiber {

using duet::AllFailed;  // the same types as the stackless when_first_ok (io/first_ok_result.hpp)
using duet::FirstOkFailure;
using duet::FirstOkResult;

namespace detail {

// Spawns fn on a fiber that claims the win if its outcome passes `test`
// (before it ends, so the others are stopped at once) and reports its end.
template <typename F, typename Test>
Fiber<WhenAnyReturn<F>> spawn_first_ok_child(WhenAnyState& state, std::size_t index, F&& fn, const Test& test) {
  using R = WhenAnyReturn<F>;
  return state.scheduler().spawn([&state, &test, index, f = std::forward<F>(fn)]() mutable -> R {
    struct Report {
      WhenAnyState& state_;
      std::size_t index_;
      ~Report() { state_.finished(index_); }
    } report{state, index};
    if constexpr (std::is_void_v<R>) {
      std::invoke(f, state.token());
      if (test()) state.claim(index);
    } else {
      R value = std::invoke(f, state.token());
      if (test(std::as_const(value))) state.claim(index);
      return std::forward<R>(value);  // moved out; a reference stays one
    }
  });
}

// A fiber's outcome as a failure. Rethrows only the scheduler's own error
// (join found a deadlock): then the fiber still runs and must not be left.
template <typename R>
FirstOkFailure<R> join_failure(Fiber<R>& fiber) {
  try {
    return FirstOkFailure<R>::returned(join_value(fiber));
  } catch (...) {
    if (fiber.joinable()) throw;
    return FirstOkFailure<R>::thrown(std::current_exception());
  }
}

// Waits for a winner or for every fiber's end, then joins them all.
template <typename R>
FirstOkResult<R> collect_first_ok(WhenAnyState& state, std::span<Fiber<R>> fibers) {
  const std::size_t winner = state.wait_for_winner(fibers.size());
  if (winner != WhenAnyState::no_winner) {
    for (std::size_t i = 0; i < fibers.size(); ++i) {
      if (i != winner) join_loser(fibers[i]);
    }
    return FirstOkResult<R>(WhenAnyResult<R>{winner, join_value(fibers[winner])});
  }
  std::vector<FirstOkFailure<R>> failures;
  failures.reserve(fibers.size());
  for (auto& f : fibers) failures.push_back(join_failure(f));
  return FirstOkResult<R>(std::move(failures));
}

template <typename F, typename Test>
FirstOkResult<WhenAnyReturn<F>> when_first_ok_range(std::stop_token outer, std::vector<F> fns, const Test& test) {
  if (fns.empty()) throw std::invalid_argument("duet: when_first_ok of no callables has no winner");
  WhenAnyState state(std::move(outer), WhenAnyState::Win::claimed);
  std::vector<Fiber<WhenAnyReturn<F>>> fibers;
  fibers.reserve(fns.size());
  try {
    for (std::size_t i = 0; i < fns.size(); ++i) {
      fibers.push_back(spawn_first_ok_child(state, i, std::move(fns[i]), test));
    }
  } catch (...) {
    state.request_stop();
    for (auto& f : fibers) join_loser(f);
    throw;
  }
  return collect_first_ok(state, std::span(fibers));
}

template <typename... Fs, std::size_t... I>
auto when_first_ok_list(std::stop_token outer, std::index_sequence<I...>, Fs&&... fns) {
  using R = WhenAnyReturn<std::tuple_element_t<0, std::tuple<Fs...>>>;
  const duet::detail::SucceededByDefault test{};
  WhenAnyState state(std::move(outer), WhenAnyState::Win::claimed);
  std::array<Fiber<R>, sizeof...(Fs)> fibers;
  try {
    ((fibers[I] = spawn_first_ok_child(state, I, std::forward<Fs>(fns), test)), ...);
  } catch (...) {
    state.request_stop();
    for (auto& f : fibers) join_loser(f);
    throw;
  }
  return collect_first_ok(state, std::span<Fiber<R>>(fibers));
}

}  // namespace detail

template <typename F>
  requires std::is_invocable_v<F&, std::stop_token>
FirstOkResult<WhenAnyReturn<F>> when_first_ok(std::stop_token outer, std::vector<F> fns) {
  return detail::when_first_ok_range(std::move(outer), std::move(fns), duet::detail::SucceededByDefault{});
}

template <typename F>
  requires std::is_invocable_v<F&, std::stop_token>
FirstOkResult<WhenAnyReturn<F>> when_first_ok(std::vector<F> fns) {
  return when_first_ok(std::stop_token{}, std::move(fns));
}

template <typename F, typename Pred>
  requires std::is_invocable_v<F&, std::stop_token> && FirstOkPredicate<Pred, WhenAnyReturn<F>>
FirstOkResult<WhenAnyReturn<F>> when_first_ok(std::stop_token outer, std::vector<F> fns, Pred pred) {
  return detail::when_first_ok_range(std::move(outer), std::move(fns), pred);
}

template <typename F, typename Pred>
  requires std::is_invocable_v<F&, std::stop_token> && FirstOkPredicate<Pred, WhenAnyReturn<F>>
FirstOkResult<WhenAnyReturn<F>> when_first_ok(std::vector<F> fns, Pred pred) {
  return when_first_ok(std::stop_token{}, std::move(fns), std::move(pred));
}

// Callables of different types returning one type R.
template <typename F, typename... Fs>
  requires(std::is_invocable_v<std::decay_t<F>&, std::stop_token> &&
           (std::same_as<WhenAnyReturn<Fs>, WhenAnyReturn<F>> && ...))
FirstOkResult<WhenAnyReturn<F>> when_first_ok(std::stop_token outer, F&& fn, Fs&&... fns) {
  return detail::when_first_ok_list(std::move(outer), std::index_sequence_for<F, Fs...>{}, std::forward<F>(fn),
                                    std::forward<Fs>(fns)...);
}

template <typename F, typename... Fs>
  requires(std::is_invocable_v<std::decay_t<F>&, std::stop_token> &&
           (std::same_as<WhenAnyReturn<Fs>, WhenAnyReturn<F>> && ...))
FirstOkResult<WhenAnyReturn<F>> when_first_ok(F&& fn, Fs&&... fns) {
  return when_first_ok(std::stop_token{}, std::forward<F>(fn), std::forward<Fs>(fns)...);
}

}  // namespace duet::fiber
