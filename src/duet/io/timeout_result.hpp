// duet::TimeoutResult<T> — what a deadline over a whole task or callable gives
// back in either voice (duet::with_timeout(stop, task, d) over tasks,
// duet::fiber::with_timeout(fn, d) over fibers): the value, or "timed out".
//
// Contract
// - Holds the work's value (void -> nothing, a reference -> that reference) or
//   nothing when the deadline came first and the work was stopped.
// - Follows IoResult's conventions so the two read alike: ok() / operator bool,
//   and error() == std::errc::timed_out when the deadline won (an empty
//   error_code otherwise). timed_out() says the same in one word.
// - value() on a timed-out result throws std::system_error(timed_out);
//   operator* and operator-> do not check.
// - It says nothing about the value itself: a task returning IoResult<size_t>
//   gives TimeoutResult<IoResult<size_t>>, whose inner error (e.g.
//   operation_canceled after an outside stop) is the task's own.
//
//   duet::TimeoutResult<std::string> r = co_await duet::with_timeout(stop, fetch(stop.get_token()), 1s);
//   if (r.timed_out()) co_return "";   // fetch was stopped and has finished
//   co_return std::move(*r);
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>

#include "duet/io/clock.hpp"
#include "duet/io/when_any_result.hpp"

namespace duet {

template <typename T>
class [[nodiscard]] TimeoutResult {
 public:
  using value_type = T;

  // The deadline came first.
  static TimeoutResult expired() noexcept { return TimeoutResult(); }
  // The work finished first with `value` (std::monostate for void, a
  // reference_wrapper for a reference: WhenAnyValue<T>).
  explicit TimeoutResult(WhenAnyValue<T> value) noexcept(std::is_nothrow_move_constructible_v<WhenAnyValue<T>>)
      : value_(std::move(value)) {}

  [[nodiscard]] bool timed_out() const noexcept { return !value_.has_value(); }
  [[nodiscard]] bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] std::error_code error() const noexcept {
    return ok() ? std::error_code{} : std::make_error_code(std::errc::timed_out);
  }

  decltype(auto) value() & {
    check();
    return **this;
  }
  decltype(auto) value() && {
    check();
    return *std::move(*this);
  }

  decltype(auto) operator*() & noexcept {
    if constexpr (std::is_void_v<T>) {
      return;
    } else if constexpr (std::is_reference_v<T>) {
      return static_cast<T>(value_->get());
    } else {
      return static_cast<T&>(*value_);
    }
  }
  decltype(auto) operator*() && noexcept {
    if constexpr (std::is_void_v<T>) {
      return;
    } else if constexpr (std::is_reference_v<T>) {
      return static_cast<T>(value_->get());
    } else {
      return static_cast<T&&>(*value_);
    }
  }
  auto* operator->() noexcept
    requires(!std::is_void_v<T>)
  {
    return std::addressof(**this);
  }

 private:
  TimeoutResult() noexcept = default;

  void check() const {
    if (!ok()) throw std::system_error(std::make_error_code(std::errc::timed_out));
  }

  std::optional<WhenAnyValue<T>> value_;
};

namespace detail {

// The deadline `timeout` from now, for both voices' with_timeout: a zero or
// negative timeout is now (already expired), one past the clock's range is
// time_point::max() (never) instead of an overflow.
template <typename Rep, typename Period>
std::chrono::steady_clock::time_point deadline_after(std::chrono::duration<Rep, Period> timeout) noexcept {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = duet::now();
  if (timeout <= timeout.zero()) return start;
  const auto room = std::chrono::duration_cast<std::chrono::duration<Rep, Period>>(Clock::time_point::max() - start);
  if (timeout >= room) return Clock::time_point::max();
  return start + std::chrono::duration_cast<Clock::duration>(timeout);
}

}  // namespace detail

}  // namespace duet
