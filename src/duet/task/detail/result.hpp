// duet::detail::Result<T> — "a value, a reference, nothing yet, or an exception".
//
// Shared by Task's promise, sync_wait and when_all so the three agree on how
// values, references and void travel, and on when an exception is rethrown.
// Not thread-safe on its own: the writer finishes before the reader starts
// (the coroutine machinery or an atomic counter provides that ordering).
//
//   Result<int> r;
//   r.set_value(7);
//   int v = std::move(r).get();   // 7, or rethrows a stored exception
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace duet::detail {

template <typename T>
class Result {
 public:
  Result() noexcept {}
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result(Result&&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() { reset(); }

  template <typename U>
  void set_value(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    reset();
    std::construct_at(std::addressof(value_), std::forward<U>(value));
    state_ = State::value;
  }
  void set_exception(std::exception_ptr error) noexcept {
    reset();
    std::construct_at(std::addressof(error_), std::move(error));
    state_ = State::error;
  }
  [[nodiscard]] bool has_exception() const noexcept { return state_ == State::error; }
  [[nodiscard]] std::exception_ptr exception() const noexcept {
    return state_ == State::error ? error_ : nullptr;
  }

  T& get() & {
    rethrow_if_error();
    return value_;
  }
  T get() && {
    rethrow_if_error();
    return std::move(value_);
  }

 private:
  enum class State : unsigned char { empty, value, error };

  void rethrow_if_error() const {
    if (state_ == State::error) std::rethrow_exception(error_);
  }
  void reset() noexcept {
    if (state_ == State::value) std::destroy_at(std::addressof(value_));
    if (state_ == State::error) std::destroy_at(std::addressof(error_));
    state_ = State::empty;
  }

  // A union, not std::variant: the promise is in every coroutine frame, and a
  // one-byte tag keeps Task within a hair of a bare coroutine (bench/task_bench).
  union {
    T value_;
    std::exception_ptr error_;
  };
  State state_ = State::empty;
};

// References are stored as a pointer; get() hands back the same reference.
template <typename T>
class Result<T&> {
 public:
  void set_value(T& value) noexcept { value_ = std::addressof(value); }
  void set_exception(std::exception_ptr error) noexcept { error_ = std::move(error); }
  [[nodiscard]] bool has_exception() const noexcept { return error_ != nullptr; }
  [[nodiscard]] std::exception_ptr exception() const noexcept { return error_; }
  T& get() const {
    if (error_) std::rethrow_exception(error_);
    return *value_;
  }

 private:
  T* value_ = nullptr;
  std::exception_ptr error_;
};

// Task<T&&> is refused by a static_assert in Task; this stand-in keeps that
// message the only error (a union cannot hold a reference).
template <typename T>
class Result<T&&> {
 public:
  template <typename U>
  void set_value(U&&) noexcept {}
  void set_exception(std::exception_ptr) noexcept {}
  T&& get() const;  // never defined: no Task<T&&> compiles
};

template <>
class Result<void> {
 public:
  void set_value() noexcept {}
  void set_exception(std::exception_ptr error) noexcept { error_ = std::move(error); }
  [[nodiscard]] bool has_exception() const noexcept { return error_ != nullptr; }
  [[nodiscard]] std::exception_ptr exception() const noexcept { return error_; }
  void get() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
};

// Runs fn and keeps its outcome in result: the value it returns (nothing, for
// void) or the exception it throws. For the places that run a caller's
// function elsewhere (a pool thread, another shard, a fiber) and hand the
// outcome back.
template <typename T, typename F>
void capture_into(Result<T>& result, F&& fn) noexcept {
  try {
    if constexpr (std::is_void_v<T>) {
      std::forward<F>(fn)();
      result.set_value();
    } else {
      result.set_value(std::forward<F>(fn)());
    }
  } catch (...) {
    result.set_exception(std::current_exception());
  }
}

}  // namespace duet::detail
