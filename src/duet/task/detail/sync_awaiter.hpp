// duet::detail::SyncAwaiter — the stackless voice's one waiter for every coordination primitive.
//
// Contract
// - Lives in the awaiting task's frame and holds the WaitNode (and one IoOp),
//   so a wait allocates nothing. Not copyable or movable: use it as the
//   prvalue a primitive returns (`co_await m.lock()`), or with with_timeout.
// - The primitive's core (io/detail/wait_core.hpp) decides; this class only
//   suspends and resumes. A granted waiter resumes from the loop's
//   delivery, through EventLoop::post (user space, no kernel round trip, no
//   recursion inside unlock()/set()), never inline in the granting call.
// - Timeout (set_timeout, or with_timeout): op_ becomes a sleep IoOp in the
//   loop's timer; expiry withdraws the node (std::errc::timed_out). A grant
//   cancels the timer and resumes on its completion.
// - Stop token: a stop request withdraws the node (operation_canceled); one
//   already stopped fails at once, even if the primitive was free. request_stop
//   must run on the loop's thread. A grant that beat the cancel wins: the
//   waiter gets what it was granted (it owns the lock then).
// - Destroying the frame while suspended here unlinks the node; if it was
//   granted but not yet resumed, the grant is given back (a Mutex passes to
//   the next waiter), and a pending timer or post is abandoned.
//
//   struct WaitAwaiter : SyncAwaiter {
//     IoResult<void> await_resume() noexcept { return wait_result(take_state()); }
//   };
#pragma once

#include <chrono>
#include <coroutine>
#include <optional>
#include <stop_token>

#include "duet/io/detail/wait_core.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/wait_queue.hpp"

namespace duet::detail {

class SyncAwaiter {
 public:
  SyncAwaiter(EventLoop& loop, WaitCore& core, std::size_t count, std::stop_token token) noexcept;
  SyncAwaiter(const SyncAwaiter&) = delete;
  SyncAwaiter& operator=(const SyncAwaiter&) = delete;
  SyncAwaiter(SyncAwaiter&&) = delete;
  SyncAwaiter& operator=(SyncAwaiter&&) = delete;
  ~SyncAwaiter();

  void set_timeout(std::chrono::nanoseconds timeout) noexcept { timeout_ = timeout; }
  void set_stop_token(std::stop_token token) noexcept { token_ = std::move(token); }

  // Arrives at the core: true when granted (or cancelled) at once.
  bool await_ready() noexcept;
  void await_suspend(std::coroutine_handle<> waiter) noexcept;

 protected:
  // The outcome, for await_resume: from here on a grant is the caller's.
  WaitState take_state() noexcept {
    taken_ = true;
    return node_.state_;
  }
  // What the core's hand-off moves (a Channel's value slot, in the derived awaiter).
  void set_payload(void* payload) noexcept { node_.payload_ = payload; }

 private:
  struct Canceller {
    SyncAwaiter* self_;
    void operator()() const noexcept;
  };
  static void on_wake(WaitNode* node) noexcept;
  static void on_op(IoOp* op, int res) noexcept;
  void schedule_resume() noexcept;

  EventLoop* loop_;
  WaitCore* core_;
  WaitNode node_;
  IoOp op_;  // the timer while queued with a timeout; the posted wake-up otherwise
  std::coroutine_handle<> waiter_;
  std::stop_token token_;
  std::optional<std::stop_callback<Canceller>> on_stop_;
  std::chrono::nanoseconds timeout_{0};
  bool taken_ = false;
};

// co_await gives IoResult<void>: Event, Latch, Semaphore.
class WaitAwaiter : public SyncAwaiter {
 public:
  using SyncAwaiter::SyncAwaiter;
  IoResult<void> await_resume() noexcept { return wait_result(take_state()); }
};

}  // namespace duet::detail
