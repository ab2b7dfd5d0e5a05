// duet::SignalFd — the voice-neutral half of a SignalSet: a signalfd on one
// EventLoop, and the calling thread's signal mask while it lives.
//
// Contract
// - SignalFd(loop, {SIGINT, SIGTERM}) blocks the signals in the calling thread
//   (pthread_sigmask), so the kernel queues them instead of running their
//   disposition, and opens a non-blocking signalfd for them. The voices'
//   SignalSets (task/signal_set.hpp, stackful/signal_set.hpp) wait on it
//   through the loop: a poll op for POLLIN, then try_read() on the loop's
//   thread. Throws std::system_error: EINVAL for an empty list, a number out of
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
//   ::raise(SIGUSR1);
//   int signo = fd.try_read();              // SIGUSR1, or -EAGAIN if none pending
//   duet::IoOp op; fd.prepare_poll(op);     // wait for the next: POLLIN on the fd
#pragma once

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

  // One pending signal's number, -EAGAIN if none, or -errno. Loop thread.
  [[nodiscard]] int try_read() const noexcept;
  // Describes "wait until a signal is pending" in op (kind, fd, flags); the
  // caller keeps its own complete_, context_ and timeout_.
  void prepare_poll(IoOp& op) const noexcept;

 private:
  EventLoop* loop_;
  sigset_t set_{};
  int fd_ = -1;
};

}  // namespace duet
