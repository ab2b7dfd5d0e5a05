// duet::SignalFd — the voice-neutral half of a SignalSet: a signalfd on one
// EventLoop, and the calling thread's signal mask while it lives.
//
// Contract
// - SignalFd(loop, {SIGINT, SIGTERM}) blocks the signals in the calling thread
//   (pthread_sigmask), so the kernel queues them instead of running their
//   disposition, and opens a non-blocking signalfd for them. The voices'
//   SignalSets (task/signal_set.hpp, stackful/signal_set.hpp) wait on it
//   through the loop with step(): it reads a pending signal, or describes a
//   poll op for POLLIN for the voice to run and then calls it again. Throws std::system_error: EINVAL for an empty list, a number out of
//   range, SIGKILL or SIGSTOP (they cannot be caught); ENOTSUP on Backend::sim
//   (no kernel there to queue a signal); the errno of signalfd otherwise.
// - Mask bookkeeping is per thread and counted per signal: the first SignalFd
//   of a thread to take a signal blocks it unless it was already blocked; the
//   last one to let it go unblocks it only if it was the one that blocked it.
//   So two sets for one signal, or a signal the program blocked itself, leave
//   the mask as it was before the first set. Threads started while a set
//   lives inherit the blocked mask and keep it (their masks are their own).
// - try_read() takes one pending signal: its number (> 0), -EAGAIN when none
//   is pending, or -errno. signalfd reads what is pending for the *reading*
//   thread: process-directed signals (kill, a terminal's Ctrl-C) and those
//   sent to this thread (raise, pthread_kill/tgkill to it) — never a signal
//   sent to another thread.
// - Owner: the loop's thread; construct, use and destroy it there (the mask it
//   changed is that thread's). Move-less (the mask bookkeeping is a promise).
//
//   duet::SignalFd fd(loop, {SIGUSR1});
//   int r = fd.step(0, op, deadline);       // a pending signal's number, or:
//   while (r == duet::SignalFd::poll_again) { /* run op (a poll), then */ r = fd.step(op_res, op, deadline); }
#pragma once

#include <chrono>
#include <csignal>
#include <initializer_list>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"

namespace duet {

class SignalFd {
 public:
  SignalFd(EventLoop& loop, std::initializer_list<int> signals);
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  SignalFd(SignalFd&&) = delete;
  SignalFd& operator=(SignalFd&&) = delete;
  // Closes the fd through the loop (cancelling a poll still waiting on it),
  // then gives the thread's mask back its bits (see above). A signal still
  // pending then is delivered under the restored mask: its disposition runs
  // (SIGTERM's default ends the process), as if no set had been there.
  ~SignalFd();

  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] bool contains(int signo) const noexcept;

  // The one wait both voices run, a step at a time, on the loop's thread.
  // res: 0 before the first poll, else the poll's result. Returns what the
  // wait ends with — a signal's number, or -errno (the poll's own failure:
  // -ECANCELED, -ETIMEDOUT; a read error) — or poll_again after describing
  // in op a poll for POLLIN (kind_, fd_, flags_, and timeout_ = what is left
  // before deadline; Clock::time_point::max(): no timeout) for the caller to
  // run. A poll that finds nothing to read (another reader of the signal
  // took it) just polls again; -ETIMEDOUT when the deadline has passed.
  static constexpr int poll_again = EventLoop::pending;
  [[nodiscard]] int step(int res, IoOp& op, IoOp::Clock::time_point deadline) const noexcept;
  // One pending signal's number, -EAGAIN if none, or -errno.
  [[nodiscard]] int try_read() const noexcept;

 private:
  EventLoop* loop_;
  sigset_t set_{};
  int fd_ = -1;
};

}  // namespace duet
