// duet::FirstOkResult<T> / FirstOkFailure<T> / AllFailed — what when_first_ok
// gives back in either voice (duet::when_first_ok over tasks,
// duet::fiber::when_first_ok over fibers), and the success test both use.
//
// Contract
// - A child succeeded when it finished without an exception and
//   - with a predicate: pred(value) is true (a predicate that throws counts as
//     that child's failure, with its exception);
//   - without one: its value is an ok IoResult, or, for any other type
//     (void included), it simply returned (detail::SucceededByDefault).
// - FirstOkResult<T> holds either the winner, {index, value} (the first child
//   to succeed, in time, not in position), or, when none succeeded, one
//   FirstOkFailure per child in child order: failures()[i] is child i's.
//   ok() tells which. index()/value() on a result with no winner throw
//   AllFailed, whose what() lists every failure (as IoResult::value() throws
//   std::system_error), so `(co_await when_first_ok(...)).value()` reads as
//   the exception-style call.
// - FirstOkFailure<T>: a child's exception (threw()) or the value that was not
//   a success (value(): an IoResult holding its error, or what the predicate
//   rejected); error() is the error code when there is one, message() a line
//   for a log.
// - Plain values: no thread affinity of their own.
//
//   auto r = co_await duet::when_first_ok(stop, std::move(connects));
//   if (!r) for (auto& f : r.failures()) log(f.message());   // "Connection refused", ...
//   else use(r.index(), *std::move(r).value());
#pragma once

#include <concepts>
#include <cstddef>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/io/io_result.hpp"
#include "duet/io/when_any_result.hpp"

namespace duet {

namespace detail {

template <typename T>
inline constexpr bool is_io_result_v = false;
template <typename U>
inline constexpr bool is_io_result_v<IoResult<U>> = true;

// The test without a predicate: an IoResult must be ok; anything else that was
// returned (not thrown) is a success. Called on the child's value, or on
// nothing for a void child.
struct SucceededByDefault {
  template <typename V>
  bool operator()(const V& value) const noexcept {
    if constexpr (is_io_result_v<V>) {
      return value.ok();
    } else {
      return true;
    }
  }
  bool operator()() const noexcept { return true; }
};

}  // namespace detail

// The test a predicate must pass: callable on a const view of the value.
template <typename Pred, typename T>
concept FirstOkPredicate = !std::is_void_v<T> && std::predicate<const Pred&, const std::remove_reference_t<T>&>;

template <typename T>
class FirstOkFailure {
 public:
  static FirstOkFailure thrown(std::exception_ptr error) noexcept {
    FirstOkFailure f;
    f.exception_ = std::move(error);
    return f;
  }
  static FirstOkFailure returned(WhenAnyValue<T> value) {
    FirstOkFailure f;
    f.value_.emplace(std::move(value));
    return f;
  }

  [[nodiscard]] bool threw() const noexcept { return exception_ != nullptr; }
  // What the child threw; nullptr if it returned a value that failed the test.
  [[nodiscard]] const std::exception_ptr& exception() const noexcept { return exception_; }
  // The value that failed the test. std::logic_error if the child threw.
  WhenAnyValue<T>& value() & { return (require_value(), *value_); }
  const WhenAnyValue<T>& value() const& { return (require_value(), *value_); }
  WhenAnyValue<T>&& value() && { return (require_value(), std::move(*value_)); }

  // An IoResult's error, or a thrown std::system_error's code; else none ({}).
  [[nodiscard]] std::error_code error() const noexcept {
    if constexpr (detail::is_io_result_v<WhenAnyValue<T>>) {
      if (value_) return value_->error();
    }
    if (!exception_) return {};
    try {
      std::rethrow_exception(exception_);
    } catch (const std::system_error& e) {
      return e.code();
    } catch (...) {
      return {};
    }
  }
  // One line for a log: the error's message, the exception's what(), or
  // "rejected by the predicate" for a value with no error in it.
  [[nodiscard]] std::string message() const {
    if (exception_) {
      try {
        std::rethrow_exception(exception_);
      } catch (const std::exception& e) {
        return e.what();
      } catch (...) {
        return "an exception not derived from std::exception";
      }
    }
    const std::error_code code = error();
    return code ? code.message() : "rejected by the predicate";
  }

 private:
  FirstOkFailure() = default;
  void require_value() const {
    if (!value_) throw std::logic_error("duet: FirstOkFailure::value() of a child that threw");
  }

  std::optional<WhenAnyValue<T>> value_;
  std::exception_ptr exception_;
};

// Thrown by FirstOkResult::index()/value() when no child succeeded.
class AllFailed : public std::runtime_error {
 public:
  AllFailed(const std::string& what, std::size_t count) : std::runtime_error(what), count_(count) {}
  // How many children failed (all of them).
  [[nodiscard]] std::size_t count() const noexcept { return count_; }

 private:
  std::size_t count_;
};

template <typename T>
class [[nodiscard]] FirstOkResult {
 public:
  explicit FirstOkResult(WhenAnyResult<T> winner) : winner_(std::move(winner)) {}
  explicit FirstOkResult(std::vector<FirstOkFailure<T>> failures) noexcept : failures_(std::move(failures)) {}

  [[nodiscard]] bool ok() const noexcept { return winner_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }

  // The winner's position among the children. AllFailed if none succeeded.
  [[nodiscard]] std::size_t index() const { return (require_winner(), winner_->index); }
  // The winner's value. AllFailed if none succeeded.
  WhenAnyValue<T>& value() & { return (require_winner(), winner_->value); }
  const WhenAnyValue<T>& value() const& { return (require_winner(), winner_->value); }
  WhenAnyValue<T>&& value() && { return (require_winner(), std::move(winner_->value)); }

  // Every child's failure, in child order; empty when a child succeeded.
  [[nodiscard]] const std::vector<FirstOkFailure<T>>& failures() const noexcept { return failures_; }
  [[nodiscard]] std::vector<FirstOkFailure<T>>& failures() noexcept { return failures_; }

 private:
  void require_winner() const {
    if (!winner_) throw_all_failed();
  }
  [[noreturn]] void throw_all_failed() const {
    std::string what = "duet: when_first_ok: all " + std::to_string(failures_.size()) + " children failed:";
    for (std::size_t i = 0; i < failures_.size(); ++i) {
      what += (i == 0 ? " [" : "; [") + std::to_string(i) + "] " + failures_[i].message();
    }
    throw AllFailed(what, failures_.size());
  }

  std::optional<WhenAnyResult<T>> winner_;
  std::vector<FirstOkFailure<T>> failures_;
};

}  // namespace duet
