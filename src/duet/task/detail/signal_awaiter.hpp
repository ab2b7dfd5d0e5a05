// The awaiter behind SignalSet::wait (task/signal_set.hpp): an IoAwaiter (an
// IoOp in the coroutine frame, stop token and with_timeout aware) that takes a
// pending signal at once, or polls the signalfd and reads when it is ready.
//
//   IoResult<int> signo = co_await detail::SignalAwaiter(signal_fd, token);
#pragma once

#include <chrono>
#include <coroutine>
#include <stop_token>

#include "duet/io/io_result.hpp"
#include "duet/io/signal_fd.hpp"
#include "duet/task/io_awaiter.hpp"

namespace duet::detail {

class SignalAwaiter : public IoAwaiter {
 public:
  SignalAwaiter(const SignalFd& fd, std::stop_token token) noexcept;
  // False (no suspension) when a signal was already pending, the token was
  // already stopped, or the poll finished inline.
  bool await_suspend(std::coroutine_handle<> waiter) noexcept;
  // The signal's number, or operation_canceled / timed_out / the read's error.
  [[nodiscard]] IoResult<int> await_resume() const noexcept;

 private:
  static void on_ready(IoOp* op, int res) noexcept;
  bool read_or_wait(int res) noexcept;
  const SignalFd* fd_;
  std::chrono::steady_clock::time_point deadline_{};
};

}  // namespace duet::detail
