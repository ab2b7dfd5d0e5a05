// ThreadInterrupt: a per-thread POSIX timer aimed at its owner with
// SIGEV_THREAD_ID, so the signal goes to that thread only (never to a loop
// thread of the process), and a no-op handler installed once without
// SA_RESTART. A timer rather than pthread_kill because it repeats by itself
// until disarmed, which closes the check-then-block window without any thread
// having to wait; and a timer's signal is queued at most once (overruns are
// counted, not queued), so disarm has at most one pending signal to discard.
#include "duet/runtime/detail/thread_interrupt.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

namespace duet::detail {

namespace {

void on_interrupt(int) noexcept {}  // its only effect is the EINTR

void install_handler() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = &on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: the interrupted syscall must fail with EINTR
    ::sigaction(ThreadInterrupt::signal(), &sa, nullptr);
  });
}

void mask(int how) noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, ThreadInterrupt::signal());
  ::pthread_sigmask(how, &set, nullptr);
}

}  // namespace

int ThreadInterrupt::signal() noexcept { return SIGRTMIN + 6; }

ThreadInterrupt::ThreadInterrupt() noexcept {
  install_handler();
  block();
  struct sigevent ev {};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = signal();
  ev._sigev_un._tid = static_cast<pid_t>(::syscall(SYS_gettid));  // sigev_notify_thread_id: glibc 2.35+ only
  has_timer_ = ::timer_create(CLOCK_MONOTONIC, &ev, &timer_) == 0;
}

ThreadInterrupt::~ThreadInterrupt() {
  if (has_timer_) ::timer_delete(timer_);
}

void ThreadInterrupt::arm() noexcept {
  if (!has_timer_ || armed_) return;
  armed_ = true;
  struct itimerspec spec {};
  spec.it_value.tv_nsec = 1;              // now
  spec.it_interval.tv_nsec = 5'000'000;   // and again until disarmed
  ::timer_settime(timer_, 0, &spec, nullptr);
}

void ThreadInterrupt::disarm() noexcept {
  if (!armed_) return;
  armed_ = false;
  struct itimerspec off {};
  ::timer_settime(timer_, 0, &off, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal());
  const struct timespec now {};
  while (::sigtimedwait(&set, nullptr, &now) == signal()) {
  }
}

void ThreadInterrupt::allow() noexcept { mask(SIG_UNBLOCK); }
void ThreadInterrupt::block() noexcept { mask(SIG_BLOCK); }

}  // namespace duet::detail
