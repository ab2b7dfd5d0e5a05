// duet::IoResult<T> — the result of one I/O call in either voice: a value or an error.
//
// Contract
// - Holds either a T (ok) or a std::error_code (failed). Both voices return the
//   same type: `co_await sock.recv(buf)` and the stackful `sock.recv(buf)` both
//   give IoResult<std::size_t>.
// - EOF is explicit: a recv that reads 0 bytes into a non-empty buffer is the
//   error io_errc::eof (r.eof() is true), so a successful recv always has >= 1 byte.
// - Kernel errors arrive as std::errc values in std::generic_category():
//   r.error() == std::errc::connection_refused, std::errc::timed_out (per-op
//   timeout), std::errc::operation_canceled (cancel or stop_token), ...
// - value() on a failed result throws std::system_error; operator* does not check.
//
//   duet::IoResult<std::size_t> r = co_await sock.recv(buf);
//   if (r.eof()) co_return;                         // peer closed
//   if (!r) { log(r.error().message()); co_return; }
//   use(buf, *r);
#pragma once

#include <cerrno>
#include <system_error>
#include <type_traits>
#include <utility>

namespace duet {

// Errors duet adds to errno's: only EOF, which the kernel reports as a 0 result.
enum class io_errc { eof = 1 };

const std::error_category& io_category() noexcept;

inline std::error_code make_error_code(io_errc e) noexcept {
  return {static_cast<int>(e), io_category()};
}

// -errno (as io_uring and the epoll backend report it) -> std::error_code.
inline std::error_code error_from_res(int res) noexcept {
  return {-res, std::generic_category()};
}

}  // namespace duet

template <>
struct std::is_error_code_enum<duet::io_errc> : std::true_type {};

namespace duet {

template <typename T>
class [[nodiscard]] IoResult {
 public:
  using value_type = T;

  IoResult(T value) noexcept(std::is_nothrow_move_constructible_v<T>)  // NOLINT: implicit by design
      : value_(std::move(value)) {}
  IoResult(std::error_code error) noexcept : error_(error) {}  // NOLINT: implicit by design
  IoResult(io_errc error) noexcept : error_(make_error_code(error)) {}  // NOLINT

  [[nodiscard]] bool ok() const noexcept { return !error_; }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] bool eof() const noexcept { return error_ == io_errc::eof; }
  [[nodiscard]] std::error_code error() const noexcept { return error_; }

  T& value() & {
    check();
    return value_;
  }
  T&& value() && {
    check();
    return std::move(value_);
  }
  T& operator*() & noexcept { return value_; }
  T&& operator*() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }

 private:
  void check() const {
    if (error_) throw std::system_error(error_);
  }

  T value_{};
  std::error_code error_;
};

template <>
class [[nodiscard]] IoResult<void> {
 public:
  using value_type = void;

  IoResult() noexcept = default;
  IoResult(std::error_code error) noexcept : error_(error) {}  // NOLINT: implicit by design
  IoResult(io_errc error) noexcept : error_(make_error_code(error)) {}  // NOLINT

  [[nodiscard]] bool ok() const noexcept { return !error_; }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] bool eof() const noexcept { return error_ == io_errc::eof; }
  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  void value() const {
    if (error_) throw std::system_error(error_);
  }

 private:
  std::error_code error_;
};

}  // namespace duet
