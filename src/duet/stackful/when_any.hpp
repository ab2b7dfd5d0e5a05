// duet::fiber::when_any — run callables on fibers; the first to return wins,
// the others are stopped and joined.
//
// Contract
// - when_any(fns...): each fn is called as fn(std::stop_token) on a new fiber
//   of the current scheduler; all the tokens come from one std::stop_source
//   that when_any owns. Returns std::variant<R0, R1, ...> whose index() is the
//   winner's position (void -> std::monostate, R& -> std::reference_wrapper).
//   when_any(std::vector<F>) runs every element alike and returns
//   WhenAnyResult<R> = {index, value}. Both forms also take the caller's own
//   token first (see below).
// - The winner is the first fiber to finish, returning or throwing. As it
//   finishes the source is stopped; when_any then joins every other fiber
//   before it returns, so nothing it started outlives the call. A loser that
//   ignores its token keeps when_any waiting: stopping is cooperative.
// - Exceptions: the winner's is rethrown; the losers' are dropped (after the
//   stop, "cancelled" is the expected way for a loser to end).
// - when_any(token, fns...): the caller's own token, linked to the source, so
//   a stop requested from outside stops every child (the first of them to end,
//   typically with operation_canceled, is still the winner).
// - Blocks the calling fiber, not the thread: other fibers and I/O run while it
//   waits. Called on the scheduler's thread outside any fiber, it drives the
//   scheduler instead (as Fiber::join does). No scheduler: std::logic_error.
//   The scheduler's thread only; stop the caller's token on that thread too.
//   A spawn that fails (no stack) stops and joins the fibers already started,
//   then rethrows. An empty vector throws std::invalid_argument. A callable
//   that does not take a std::stop_token is refused by a static_assert.
//
//   auto r = duet::fiber::when_any(
//       [&](std::stop_token t) { return conn.recv(buf, t); },
//       [](std::stop_token t) { return duet::fiber::sleep_for(1s, t); });
//   if (r.index() == 0) use(std::get<0>(r));   // else: timed out, the recv was cancelled
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "duet/io/when_any_result.hpp"
#include "duet/stackful/fiber.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber {

using duet::WhenAnyResult;  // the same types as the stackless when_any (io/when_any_result.hpp)
using duet::WhenAnyValue;

template <typename F>
using WhenAnyReturn = std::invoke_result_t<std::decay_t<F>&, std::stop_token>;

namespace detail {

// What the fibers of one when_any call share; lives on the caller's stack, which
// outlives them all (when_any joins every one). Scheduler thread only.
// when_first_ok builds it with Win::claimed: a child wins by calling claim()
// (when it succeeded), not by ending, and the caller may find no winner.
class WhenAnyState {
 public:
  static constexpr std::size_t no_winner = static_cast<std::size_t>(-1);
  // finishing: the first child to end wins (when_any); claimed: the first to call claim() (when_first_ok).
  enum class Win : unsigned char { finishing, claimed };

  // The current scheduler (std::logic_error if none); `outer` stops the source too.
  explicit WhenAnyState(std::stop_token outer, Win win = Win::finishing);
  WhenAnyState(const WhenAnyState&) = delete;
  WhenAnyState& operator=(const WhenAnyState&) = delete;
  WhenAnyState(WhenAnyState&&) = delete;
  WhenAnyState& operator=(WhenAnyState&&) = delete;
  ~WhenAnyState() = default;

  [[nodiscard]] Scheduler& scheduler() const noexcept { return *scheduler_; }
  [[nodiscard]] std::stop_token token() const noexcept { return stop_.get_token(); }
  void request_stop() noexcept { stop_.request_stop(); }
  // Child `index` wins if no one has yet: stops the others, wakes the caller.
  void claim(std::size_t index) noexcept;
  // Called by child `index` as it ends (with Win::finishing, it claims too).
  void finished(std::size_t index) noexcept;
  // Blocks the calling fiber (or drives the scheduler) until a child has won
  // or all `children` have ended: the winner, or no_winner.
  std::size_t wait_for_winner(std::size_t children);

 private:
  struct Link {
    std::stop_source* stop_;
    void operator()() const noexcept { stop_->request_stop(); }
  };

  [[nodiscard]] bool decided() const noexcept { return winner_ != no_winner || ended_ == children_; }
  void wake_waiter() noexcept;

  Scheduler* scheduler_;
  std::stop_source stop_;
  std::optional<std::stop_callback<Link>> link_;  // outer token -> stop_
  FiberRecord* waiter_ = nullptr;                 // the caller, while parked
  std::size_t winner_ = no_winner;
  std::size_t ended_ = 0;
  std::size_t children_ = no_winner;  // known once the caller waits
  Win win_;
};

// Spawns fn on a fiber that reports to `state` as it ends (returning or throwing).
template <typename F>
Fiber<WhenAnyReturn<F>> spawn_child(WhenAnyState& state, std::size_t index, F&& fn) {
  using R = WhenAnyReturn<F>;
  return state.scheduler().spawn([&state, index, f = std::forward<F>(fn)]() mutable -> R {
    struct Report {
      WhenAnyState& state_;
      std::size_t index_;
      ~Report() { state_.finished(index_); }
    } report{state, index};
    return std::invoke(f, state.token());
  });
}

// The winner's value, or its exception rethrown.
template <typename R>
WhenAnyValue<R> join_value(Fiber<R>& fiber) {
  if constexpr (std::is_void_v<R>) {
    fiber.join();
    return {};
  } else if constexpr (std::is_reference_v<R>) {
    return std::ref(fiber.join());
  } else {
    return fiber.join();
  }
}

// Drops a loser's exception (see the contract), but not the scheduler's own
// (join found a deadlock): then the fiber still runs, its handle is kept, and
// returning would leave it using the caller's stack.
template <typename R>
void join_loser(Fiber<R>& fiber) {
  if (!fiber.joinable()) return;
  try {
    static_cast<void>(fiber.join());  // a loser's result is dropped, even a [[nodiscard]] IoResult
  } catch (...) {
    if (fiber.joinable()) throw;
  }
}

template <typename... Fs, std::size_t... I>
auto when_any_tuple(WhenAnyState& state, std::index_sequence<I...>, Fs&&... fns)
    -> std::variant<WhenAnyValue<WhenAnyReturn<Fs>>...> {
  std::tuple<Fiber<WhenAnyReturn<Fs>>...> fibers;
  try {
    ((std::get<I>(fibers) = spawn_child(state, I, std::forward<Fs>(fns))), ...);
  } catch (...) {
    state.request_stop();
    (join_loser(std::get<I>(fibers)), ...);
    throw;
  }
  const std::size_t winner = state.wait_for_winner(sizeof...(Fs));
  ((I != winner ? join_loser(std::get<I>(fibers)) : void()), ...);
  std::optional<std::variant<WhenAnyValue<WhenAnyReturn<Fs>>...>> out;
  (void)((winner == I && (out.emplace(std::in_place_index<I>, join_value(std::get<I>(fibers))), true)) || ...);
  return std::move(*out);
}

// One message for callables of the wrong shape.
template <typename... Fs>
constexpr bool check_callables() {
  constexpr bool ok = (std::is_invocable_v<std::decay_t<Fs>&, std::stop_token> && ...);
  static_assert(ok,
                "duet: fiber::when_any calls each fn(std::stop_token) on a fiber of its own: give every callable a "
                "std::stop_token parameter and pass it on to its blocking calls");
  return ok;
}

}  // namespace detail

// The entry points check their callables with one static_assert each (through
// check_callables), not a requires clause: a wrong call then reads as one
// message saying what to write, not a page of failed constraints.
template <typename... Fs>
auto when_any(std::stop_token outer, Fs&&... fns) {
  static_assert(sizeof...(Fs) > 0, "duet: fiber::when_any needs at least one callable");
  if constexpr (detail::check_callables<Fs...>()) {
    detail::WhenAnyState state(std::move(outer));
    return detail::when_any_tuple(state, std::index_sequence_for<Fs...>{}, std::forward<Fs>(fns)...);
  }
}

template <typename F0, typename... Fs>
  requires(!std::is_same_v<std::remove_cvref_t<F0>, std::stop_token>)
auto when_any(F0&& first, Fs&&... rest) {
  return fiber::when_any(std::stop_token{}, std::forward<F0>(first), std::forward<Fs>(rest)...);
}

template <typename F>
auto when_any(std::stop_token outer, std::vector<F> fns) {
  if constexpr (detail::check_callables<F>()) {
    if (fns.empty()) throw std::invalid_argument("duet: when_any of no callables has no winner");
    detail::WhenAnyState state(std::move(outer));
    std::vector<Fiber<WhenAnyReturn<F>>> fibers;
    fibers.reserve(fns.size());
    try {
      for (std::size_t i = 0; i < fns.size(); ++i) fibers.push_back(detail::spawn_child(state, i, std::move(fns[i])));
    } catch (...) {
      state.request_stop();
      for (auto& f : fibers) detail::join_loser(f);
      throw;
    }
    const std::size_t winner = state.wait_for_winner(fibers.size());
    for (std::size_t i = 0; i < fibers.size(); ++i) {
      if (i != winner) detail::join_loser(fibers[i]);
    }
    return WhenAnyResult<WhenAnyReturn<F>>{winner, detail::join_value(fibers[winner])};
  }
}

template <typename F>
auto when_any(std::vector<F> fns) {
  return fiber::when_any(std::stop_token{}, std::move(fns));
}

}  // namespace duet::fiber
