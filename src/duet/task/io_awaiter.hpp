// duet::IoAwaiter — the bridge from one IoOp to a suspended coroutine.
//
// Contract
// - Every stackless I/O call (recv, send, accept, connect, sleep_for, ...) returns
//   an awaiter derived from IoAwaiter. It *is* the IoOp: it lives in the awaiting
//   coroutine's frame, so no allocation happens per operation.
// - Awaiters are neither copyable nor movable (an in-flight op's address is held by
//   the kernel); use them as prvalues: `co_await sock.recv(buf)`. Storing one in a
//   variable and awaiting it later also works, but only once.
// - Suspending submits the op; complete_ resumes the coroutine on the loop thread.
// - Timeout: set_timeout(d) before awaiting (or with_timeout(aw, d)); expiry gives
//   std::errc::timed_out and the op is cancelled in the kernel.
// - Stop: pass a std::stop_token; a stop request cancels the op
//   (std::errc::operation_canceled). A token already stopped fails at once without
//   submitting; an awaiter made of several ops (send_all) checks it before each,
//   so a stop landing between two of them ends it too. request_stop() must be
//   called on the loop's thread.
// - Destroying a coroutine suspended on an awaiter abandons the op: the destructor
//   cancels it and waits until the kernel lets go of the op and its buffer.
//
//   struct MyAwaiter : duet::IoAwaiter {          // what TcpStream::recv does
//     MyAwaiter(EventLoop& l, int fd, std::span<char> b) : IoAwaiter(l) { ... op_.kind_ = OpKind::recv; }
//     duet::IoResult<std::size_t> await_resume() const noexcept { return size_result(); }
//   };
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <optional>
#include <stop_token>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/io/io_result.hpp"

namespace duet {

class IoAwaiter {
 public:
  explicit IoAwaiter(EventLoop& loop, std::stop_token token = {}) noexcept;
  IoAwaiter(const IoAwaiter&) = delete;
  IoAwaiter& operator=(const IoAwaiter&) = delete;
  IoAwaiter(IoAwaiter&&) = delete;
  IoAwaiter& operator=(IoAwaiter&&) = delete;
  ~IoAwaiter();

  void set_timeout(std::chrono::nanoseconds timeout) noexcept { op_.timeout_ = timeout; }
  void set_stop_token(std::stop_token token) noexcept { token_ = std::move(token); }

  [[nodiscard]] bool await_ready() const noexcept { return false; }
  // False (resume at once) when the stop token is already stopped or the awaiter
  // failed before reaching the kernel (set_failed).
  bool await_suspend(std::coroutine_handle<> waiter) noexcept;

 protected:
  // For derived awaiters whose setup failed (e.g. socket() for connect).
  void set_failed(int res) noexcept {
    res_ = res;
    failed_early_ = true;
  }
  [[nodiscard]] int result() const noexcept { return res_; }
  void set_result(int res) noexcept { res_ = res; }
  // res -> IoResult: bytes, with 0 bytes into a non-empty buffer meaning EOF.
  [[nodiscard]] IoResult<std::size_t> size_result() const noexcept;
  [[nodiscard]] IoResult<void> void_result() const noexcept;

  IoOp op_;
  EventLoop* loop_;

 protected:
  // The default complete_: store res, drop the stop callback, resume the waiter.
  // Derived awaiters that resubmit (send_all) finish through it.
  static void on_complete(IoOp* op, int res) noexcept;
  [[nodiscard]] const std::stop_token& stop_token() const noexcept { return token_; }
  // Cancel and wait out an in-flight op; derived destructors call it before their
  // own members (a sockaddr, an fd) go away. True if an op was in flight: then
  // result() is what it ended with, undelivered: an fd or buffer it produced
  // (it may have beaten the cancel) is the caller's to release.
  bool abandon() noexcept;
  // Starts op_: true if it is in flight (complete_ will resume the waiter),
  // false if it finished at once (result() holds the outcome), or did not start
  // because the stop token is stopped (result() is -ECANCELED). Multi-step
  // awaiters start each step through it.
  bool launch(bool first = false) noexcept;  // first: from await_suspend

 private:
  struct Canceller {
    IoAwaiter* self_;
    void operator()() const noexcept { self_->loop_->cancel(self_->op_); }
  };

  std::coroutine_handle<> waiter_;
  std::stop_token token_;
  std::optional<std::stop_callback<Canceller>> on_stop_;
  int res_ = 0;
  bool failed_early_ = false;
};

}  // namespace duet
