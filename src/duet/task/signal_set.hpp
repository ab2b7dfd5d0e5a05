// duet::SignalSet — wait for POSIX signals (SIGINT, SIGTERM, ...) as I/O on a loop.
//
// Contract
// - SignalSet(loop, {SIGINT, SIGTERM}) blocks those signals in the calling
//   thread and opens a signalfd for them (io/signal_fd.hpp, shared with the
//   fiber voice). co_await signals.wait() -> IoResult<int>: the number of the
//   signal that arrived (SIGTERM, ...), the same value as the fiber voice's
//   wait. Takes a std::stop_token
//   (std::errc::operation_canceled; a token already stopped fails at once and
//   leaves the signal queued); with_timeout(signals.wait(), d) gives
//   std::errc::timed_out. wait_task(token) is the same wait as a Task, for
//   when_any / when_all / TaskScope.
// - Block the signals in EVERY thread: a process-directed signal (kill, the
//   terminal's Ctrl-C) goes to any thread that does not block it, and there
//   its default action runs (SIGTERM ends the process) instead of queueing.
//   Construct the SignalSet before starting threads (ShardSet, BlockingPool,
//   std::thread): they inherit the blocked mask. A thread started earlier must
//   block the signals itself (pthread_sigmask(SIG_BLOCK, ...)). Only signals
//   sent to the process or to this loop's thread are seen, never one sent to
//   another thread with pthread_kill.
// - Several signals pending at once: each wait returns one, in the kernel's
//   order (not necessarily the sending order). A standard signal
//   sent again before it was read is pending once (POSIX); real-time signals
//   (SIGRTMIN + n) queue every sending.
// - Two SignalSets (in any voice) for one signal: each sending is read by one
//   of them only — do not split one signal between sets. Any number of
//   coroutines may wait on one set; each signal wakes one of them.
// - Destruction restores the thread's mask (unblocks only what this set
//   blocked and no other set still holds). A signal still pending then is
//   delivered under that mask: its disposition runs (SIGINT/SIGTERM's default
//   ends the process). A signal whose disposition is SIG_IGN (nohup's SIGHUP,
//   SIGINT of a background job of a non-interactive shell) is discarded by the
//   kernel before it can be queued; SignalSet does not change dispositions.
// - Backend::sim: the constructor throws std::system_error (ENOTSUP): the
//   simulator has no kernel to queue a signal. Setup errors (an empty list,
//   SIGKILL, SIGSTOP, a bad number: EINVAL) throw std::system_error too.
// - One loop, one thread: construct, wait and destroy on the loop's thread.
//   Neither copyable nor movable; it must outlive its waits.
//
//   duet::SignalSet signals(loop, {SIGINT, SIGTERM});   // before other threads start
//   auto signo = co_await signals.wait(stop);           // IoResult<int>
//   if (signo) std::printf("got signal %d\n", *signo);
//   auto again = co_await duet::with_timeout(signals.wait(), 1s);   // timed_out after 1 s
//
// A clean stop on SIGINT/SIGTERM: docs/GUIDE.md, "Signals and a clean stop"
// (when_any of the server and wait_task, or run_until_complete with a
// std::stop_source, which honours loop.stop()).
#pragma once

#include <initializer_list>
#include <stop_token>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/signal_fd.hpp"
#include "duet/task/detail/signal_awaiter.hpp"
#include "duet/task/task.hpp"

namespace duet {

class SignalSet {
 public:
  SignalSet(EventLoop& loop, std::initializer_list<int> signals) : fd_(loop, signals) {}

  // Awaiter -> IoResult<int>; await it at once, as a prvalue.
  [[nodiscard]] detail::SignalAwaiter wait(std::stop_token token = {}) const noexcept {
    return detail::SignalAwaiter(fd_, std::move(token));
  }
  // The same wait as a lazy Task (it refers to this set: keep the set alive).
  [[nodiscard]] Task<IoResult<int>> wait_task(std::stop_token token = {});

  [[nodiscard]] bool contains(int signo) const noexcept { return fd_.contains(signo); }
  [[nodiscard]] EventLoop& loop() const noexcept { return fd_.loop(); }

 private:
  SignalFd fd_;
};

}  // namespace duet
