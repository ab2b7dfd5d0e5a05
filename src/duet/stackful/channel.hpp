// duet::fiber::Channel<T> — a bounded FIFO channel between fibers on one scheduler.
//
// Contract
// - Channel<T> ch(capacity): capacity >= 0 values buffered, allocated once
//   here; 0 is a rendezvous (send returns only once a receiver took the
//   value). Senders and receivers are served in arrival order, values arrive
//   in the order sent. Woken fibers run on a later scheduling turn, never
//   inside send/recv/close of another fiber.
// - send(v, token) -> IoResult<void> and recv(token) -> IoResult<T> block the
//   calling fiber; send_for/send_until and recv_for/recv_until add a timeout.
//   Errors: std::errc::broken_pipe (closed), std::errc::operation_canceled
//   (stop request), std::errc::timed_out.
// - close(): pending and later sends fail with broken_pipe; receivers drain
//   what is buffered, then get broken_pipe. Idempotent.
// - A value send() could not deliver (closed, cancelled, timed out) lives on
//   the sender's stack during the wait and is destroyed when send returns.
//   A hand-off that beat a stop or timeout wins: send reports success.
// - try_send(v) moves from v only on success (else broken_pipe, or
//   resource_unavailable_try_again when full); try_recv() likewise.
// - T: move-only is fine; its move must not throw, and it must be default-
//   constructible (IoResult<T>). The scheduler's thread only. Same semantics
//   as the stackless duet::Channel (io/detail/channel_core.hpp).
//
//   duet::fiber::Channel<std::string> jobs(16);
//   jobs.send("work");                       // blocks while 16 are queued
//   while (auto job = jobs.recv()) handle(*job);   // ends when closed and drained
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <utility>

#include "duet/io/detail/channel_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/stackful/detail/sync_wait.hpp"

namespace duet::fiber {

template <typename T>
class Channel : public duet::detail::ChannelCalls<T> {
  using Core = duet::detail::ChannelCore<T>;
  using duet::detail::ChannelCalls<T>::core_;

 public:
  using Clock = std::chrono::steady_clock;

  explicit Channel(std::size_t capacity) : duet::detail::ChannelCalls<T>(capacity) {}
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  Channel(Channel&&) = delete;
  Channel& operator=(Channel&&) = delete;
  ~Channel() = default;

  IoResult<void> send_until(T value, Clock::time_point deadline, const std::stop_token& token = {}) {
    typename Core::Slot slot(std::move(value));
    const WaitState state = detail::wait_on(core_.send_side(), 1, deadline, token, &slot);
    return Core::send_result(state, slot);
  }
  IoResult<void> send(T value, const std::stop_token& token = {}) {
    return send_until(std::move(value), Clock::time_point::max(), token);
  }
  template <typename Rep, typename Period>
  IoResult<void> send_for(T value, std::chrono::duration<Rep, Period> timeout, const std::stop_token& token = {}) {
    return send_until(std::move(value), detail::deadline_after(timeout), token);
  }

  IoResult<T> recv_until(Clock::time_point deadline, const std::stop_token& token = {}) {
    typename Core::Slot slot;
    const WaitState state = detail::wait_on(core_.recv_side(), 1, deadline, token, &slot);
    return Core::recv_result(state, slot);
  }
  IoResult<T> recv(const std::stop_token& token = {}) { return recv_until(Clock::time_point::max(), token); }
  template <typename Rep, typename Period>
  IoResult<T> recv_for(std::chrono::duration<Rep, Period> timeout, const std::stop_token& token = {}) {
    return recv_until(detail::deadline_after(timeout), token);
  }

  // try_send, try_recv, close, is_closed, size, capacity: duet::detail::ChannelCalls.
};

}  // namespace duet::fiber
