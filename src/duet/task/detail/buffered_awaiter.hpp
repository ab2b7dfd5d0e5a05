// duet::detail::BufferedAwaiter<T> — what BufferedReader's and BufferedWriter's
// calls return (task/buffered.hpp): an answer ready at the call, or a Task that
// receives or sends first. Plus the concepts naming the streams they accept.
//
// Contract
// - Ready (the buffer held the answer, or a write only buffered): await_ready is
//   true and co_await costs no coroutine frame, no allocation, no suspension.
// - Otherwise it holds the slow path's Task and starts it when awaited
//   (symmetric transfer, as co_await on the Task itself would).
// - Await it once, at once (as every duet awaiter): co_await reader.read_line(n).
//
//   detail::BufferedAwaiter<std::string_view> a(IoResult<std::string_view>("ready"));
//   auto line = co_await std::move(a);
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <span>
#include <stop_token>
#include <utility>

#include "duet/io/io_result.hpp"
#include "duet/task/task.hpp"

namespace duet::detail {

// A stream whose recv(buf, token) is awaited to an IoResult<std::size_t>:
// TcpStream (and UnixStream), TlsStream.
template <typename S>
concept TaskRecvStream = requires(S& s, std::span<char> buf, std::stop_token token) { s.recv(buf, token); };
// A stream whose send_all(buf, token) is awaited to an IoResult<std::size_t>.
template <typename S>
concept TaskSendStream = requires(S& s, std::span<const char> buf, std::stop_token token) {
  s.send_all(buf, token);
};
// Streams whose calls take their own timeout (TlsStream: a call is several
// socket calls); the others get with_timeout around one awaiter.
template <typename S>
concept RecvTakesTimeout = requires(S& s, std::span<char> buf, std::chrono::nanoseconds t, std::stop_token token) {
  s.recv(buf, t, token);
};
template <typename S>
concept SendTakesTimeout =
    requires(S& s, std::span<const char> buf, std::chrono::nanoseconds t, std::stop_token token) {
      s.send_all(buf, t, token);
    };

template <typename T>
class [[nodiscard]] BufferedAwaiter {
 public:
  explicit BufferedAwaiter(IoResult<T> ready) noexcept : ready_(std::move(ready)) {}
  explicit BufferedAwaiter(Task<IoResult<T>> slow) noexcept : slow_(std::move(slow)) {}

  [[nodiscard]] bool await_ready() const noexcept { return !slow_.valid(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> waiter) noexcept {
    slow_.handle().promise().set_continuation(waiter);
    return slow_.handle();
  }
  IoResult<T> await_resume() {
    if (!slow_.valid()) return std::move(ready_);
    return std::move(slow_.handle().promise().result()).get();
  }

 private:
  IoResult<T> ready_{std::error_code{}};
  Task<IoResult<T>> slow_;
};

}  // namespace duet::detail
