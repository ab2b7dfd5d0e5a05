// duet::detail::ThreadInterrupt — makes a blocking syscall on one thread
// return EINTR on request from any other thread: the blocking pool's way to
// stop a running may_block_ job (runtime/blocking_pool.hpp).
//
// Contract
// - Made on the thread it interrupts (it records that thread's id) and
//   destroyed there. Holds a POSIX timer (timer_create, SIGEV_THREAD_ID) that
//   sends signal() to that thread only; the signal's handler does nothing and
//   has no SA_RESTART, so a syscall it lands in fails with EINTR.
// - The owner thread keeps the signal blocked (block()) except around the
//   syscall (allow() ... block()). arm() from any thread, under the caller's
//   own lock ordering the owner's disarm(): the timer fires now and every
//   5 ms until disarm() — a signal that lands after the owner checked its
//   stop flag but before the syscall began would otherwise be lost (the
//   syscall then blocks: the same window pthread_cancel closes in assembly).
// - disarm(), owner thread, after block(): stops the timer and discards a
//   signal still pending, so the owner's next syscall sees none of it.
// - If the timer cannot be made (no memory, a seccomp filter), arm() does
//   nothing: the syscall runs to its own end, as before the interrupt existed.
//
//   ThreadInterrupt in;          // on the worker
//   in.allow(); int r = read(fd, buf, n); in.block();   // another thread: in.arm()
//   in.disarm();
#pragma once

#include <ctime>

namespace duet::detail {

class ThreadInterrupt {
 public:
  ThreadInterrupt() noexcept;
  ThreadInterrupt(const ThreadInterrupt&) = delete;
  ThreadInterrupt& operator=(const ThreadInterrupt&) = delete;
  ThreadInterrupt(ThreadInterrupt&&) = delete;
  ThreadInterrupt& operator=(ThreadInterrupt&&) = delete;
  ~ThreadInterrupt();

  static int signal() noexcept;

  void arm() noexcept;
  void disarm() noexcept;
  void allow() noexcept;
  void block() noexcept;

 private:
  timer_t timer_{};
  bool has_timer_ = false;
  bool armed_ = false;  // under the caller's lock (arm) / owner after it (disarm)
};

}  // namespace duet::detail
