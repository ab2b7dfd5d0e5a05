// duet::Channel<T> — a bounded FIFO channel between tasks on one loop.
//
// Contract
// - Channel<T> ch(loop, capacity): capacity >= 0 values buffered, allocated
//   once here; 0 is a rendezvous (a send completes only when a receiver takes
//   the value). Senders and receivers are served in arrival order, values
//   arrive in the order sent. Woken waiters resume from the loop's delivery.
// - co_await ch.send(v, token) -> IoResult<void>; co_await ch.recv(token) ->
//   IoResult<T>. Both work under with_timeout. Errors: std::errc::broken_pipe
//   (closed), std::errc::operation_canceled (stop request), std::errc::timed_out.
// - close(): pending and later sends fail with broken_pipe; receivers drain
//   what is buffered, then get broken_pipe. Idempotent.
// - A value send() could not deliver (closed, cancelled, timed out, its task
//   destroyed) stays in the awaiter and is destroyed with it, at the end of the
//   co_await (never delivered and destroyed both). A hand-off that beat a
//   cancel wins: the send reports success. A receiving task destroyed after a
//   value was handed to it passes the value to the next receiver (or back to
//   the buffer's front when it has room; otherwise it is destroyed).
// - try_send(v) moves from v only on success (else broken_pipe, or
//   resource_unavailable_try_again when full); try_recv() likewise.
// - T: move-only is fine; its move must not throw, and it must be default-
//   constructible (IoResult<T>). Loop thread only. Semantics shared with
//   duet::fiber::Channel (io/detail/channel_core.hpp).
//
//   duet::Channel<std::string> jobs(loop, 16);
//   co_await jobs.send("work");                       // waits while 16 are queued
//   auto job = co_await jobs.recv();                  // !job: closed and drained
#pragma once

#include <cstddef>
#include <optional>
#include <stop_token>
#include <utility>

#include "duet/io/detail/channel_core.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/task/detail/sync_awaiter.hpp"

namespace duet {

template <typename T>
class Channel : public detail::ChannelCalls<T> {
  using Core = detail::ChannelCore<T>;
  using detail::ChannelCalls<T>::core_;
  // The slot is a base listed before SyncAwaiter, so it outlives the base's
  // destructor, which may still give a received value back through it.
  struct SlotHolder {
    typename Core::Slot slot_;
  };

 public:
  class SendAwaiter : private SlotHolder, public detail::SyncAwaiter {
   public:
    SendAwaiter(EventLoop& loop, Core& core, T&& value, std::stop_token token) noexcept
        : SlotHolder{std::move(value)}, SyncAwaiter(loop, core.send_side(), 1, std::move(token)) {
      set_payload(&this->slot_);
    }
    IoResult<void> await_resume() noexcept { return Core::send_result(take_state(), this->slot_); }
  };

  class RecvAwaiter : private SlotHolder, public detail::SyncAwaiter {
   public:
    RecvAwaiter(EventLoop& loop, Core& core, std::stop_token token) noexcept
        : SlotHolder{}, SyncAwaiter(loop, core.recv_side(), 1, std::move(token)) {
      set_payload(&this->slot_);
    }
    IoResult<T> await_resume() noexcept { return Core::recv_result(take_state(), this->slot_); }
  };

  Channel(EventLoop& loop, std::size_t capacity) : detail::ChannelCalls<T>(capacity), loop_(&loop) {}
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  Channel(Channel&&) = delete;
  Channel& operator=(Channel&&) = delete;
  ~Channel() = default;

  [[nodiscard]] SendAwaiter send(T value, std::stop_token token = {}) noexcept {
    return {*loop_, core_, std::move(value), std::move(token)};
  }
  [[nodiscard]] RecvAwaiter recv(std::stop_token token = {}) noexcept { return {*loop_, core_, std::move(token)}; }
  // try_send, try_recv, close, is_closed, size, capacity: detail::ChannelCalls.

 private:
  EventLoop* loop_;
};

}  // namespace duet
