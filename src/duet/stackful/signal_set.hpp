// duet::fiber::SignalSet — wait for POSIX signals (SIGINT, SIGTERM, ...) as a blocking fiber call.
//
// Contract
// - The stackful twin of duet::SignalSet (task/signal_set.hpp), over the same
//   io/signal_fd.hpp: SignalSet({SIGINT, SIGTERM}) blocks the signals in the
//   calling thread and opens a signalfd on the current scheduler's loop (no
//   scheduler: std::logic_error). wait() blocks the calling fiber until one
//   arrives -> IoResult<int>, the signal's number; a std::stop_token gives
//   std::errc::operation_canceled (already stopped: at once, the signal stays
//   queued), the overload with a duration std::errc::timed_out.
// - The rules are the task voice's, written there once: block the signals in
//   EVERY thread (construct the set before starting threads, which inherit the
//   mask; a thread started earlier blocks them itself with pthread_sigmask);
//   one pending signal per wait (a standard signal sent twice before it is read
//   is pending once; real-time ones queue); one set per signal (each sending is
//   read by one set only); any number of fibers may wait, each signal wakes
//   one; destruction restores the thread's mask, and a signal still pending is
//   then delivered under it; SIG_IGN discards a signal before it is queued;
//   Backend::sim throws std::system_error (ENOTSUP); EINVAL for an empty list,
//   SIGKILL, SIGSTOP or a bad number.
// - The scheduler's thread only; wait() on a fiber (std::logic_error outside
//   one). Neither copyable nor movable; it must outlive its waits.
//
//   duet::fiber::SignalSet signals({SIGINT, SIGTERM});   // before other threads start
//   auto signo = signals.wait(stop);                      // IoResult<int>
//   if (signo) std::printf("got signal %d\n", *signo);
//   auto again = signals.wait(1s);                        // timed_out after 1 s
//
// A clean stop on SIGINT/SIGTERM: docs/GUIDE.md, "Signals and a clean stop"
// (fiber::when_any of the server and signals.wait, or Scheduler::run with a
// std::stop_source, which honours loop.stop()).
#pragma once

#include <chrono>
#include <initializer_list>
#include <stop_token>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/signal_fd.hpp"

namespace duet::fiber {

class SignalSet {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none

  explicit SignalSet(std::initializer_list<int> signals);

  IoResult<int> wait(std::stop_token token = {}) const { return wait(Timeout{0}, std::move(token)); }
  IoResult<int> wait(Timeout timeout, std::stop_token token = {}) const;

  [[nodiscard]] bool contains(int signo) const noexcept { return fd_.contains(signo); }
  [[nodiscard]] EventLoop& loop() const noexcept { return fd_.loop(); }

 private:
  SignalFd fd_;
};

}  // namespace duet::fiber
