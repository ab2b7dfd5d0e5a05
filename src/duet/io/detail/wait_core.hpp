// duet::detail::WaitCore — the voice-neutral semantics of one coordination primitive.
//
// Contract
// - A core decides who gets what and when (FIFO order, hand-off, what a
//   cancel does); it never suspends or resumes anything. Each voice has one
//   generic waiter over this interface (task/detail/sync_awaiter.hpp,
//   stackful/detail/sync_wait.hpp), so a primitive's logic is written once.
// - arrive(node): the waiter asks for node.count_. True: granted on the spot
//   (state granted, not queued). False: queued; later the core grants it
//   (state granted, node.wake_ runs) or the voice withdraws it.
// - withdraw(node, why): a stop request or timeout. True if node was still
//   queued: it is out now with state `why`, and the core passes on whatever
//   the node was blocking (a Semaphore's head asking for 3 units may have held
//   back a waiter asking for 1). False if it was granted first: the waiter
//   keeps what it got, so a cancel racing a hand-off never loses it.
// - give_back(node): the waiter was granted but went away before it could
//   take it (its task frame was destroyed between hand-off and resumption):
//   the core passes it on to the next waiter (Mutex, Semaphore) or drops it.
// - Loop thread only (the thread of the primitive and every waiter).
//
//   if (!core.arrive(node)) { /* suspend until node.wake_, or withdraw() */ }
#pragma once

#include <system_error>

#include "duet/io/io_result.hpp"
#include "duet/io/wait_queue.hpp"

namespace duet::detail {

class WaitCore {
 public:
  virtual bool arrive(WaitNode& node) noexcept = 0;
  virtual bool withdraw(WaitNode& node, WaitState why) noexcept = 0;
  virtual void give_back(WaitNode& node) noexcept = 0;

 protected:
  WaitCore() noexcept = default;
  WaitCore(const WaitCore&) = delete;
  WaitCore& operator=(const WaitCore&) = delete;
  WaitCore(WaitCore&&) = delete;
  WaitCore& operator=(WaitCore&&) = delete;
  ~WaitCore() = default;

  // Grants a node that was just popped from a queue and schedules its waiter.
  static void grant(WaitNode& node) noexcept {
    node.state_ = WaitState::granted;
    node.wake_(&node);
  }
};

// The outcome of a wait as both voices return it.
inline IoResult<void> wait_result(WaitState state) noexcept {
  switch (state) {
    case WaitState::granted:
      return {};
    case WaitState::timed_out:
      return std::make_error_code(std::errc::timed_out);
    default:
      return std::make_error_code(std::errc::operation_canceled);
  }
}

}  // namespace duet::detail
