// SignalFd: a signalfd plus the calling thread's mask, counted per signal.
//
// Why block: a signal that is not blocked in some thread is delivered to that
// thread (its handler or default action runs) and never reaches a signalfd.
// Blocked in every thread, a process-directed signal stays pending on the
// process, and a read of the signalfd dequeues it. The mask is per thread,
// so the bookkeeping below is thread_local: a count of the SignalFds of this
// thread that hold each signal, and which signals the first of them had to
// block (those, and only those, the last one unblocks).
#include "duet/io/signal_fd.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <system_error>

#include "duet/io/clock.hpp"

namespace duet {

namespace {

struct ThreadMask {
  std::array<std::uint32_t, NSIG> holders{};  // SignalFds of this thread holding each signal
  sigset_t blocked_by_us{};                   // signals the first holder had to block
  ThreadMask() noexcept { sigemptyset(&blocked_by_us); }
};

thread_local ThreadMask thread_mask;

[[noreturn]] void throw_error(int err, const char* what) { throw std::system_error(err, std::generic_category(), what); }

sigset_t checked_set(std::initializer_list<int> signals) {
  if (signals.size() == 0) throw_error(EINVAL, "duet::SignalSet: no signal given");
  sigset_t set;
  sigemptyset(&set);
  for (int signo : signals) {
    if (signo <= 0 || signo >= NSIG || signo == SIGKILL || signo == SIGSTOP) {
      throw_error(EINVAL, "duet::SignalSet: not a signal that can be caught");
    }
    sigaddset(&set, signo);
  }
  return set;
}

// Takes a hold on every signal of set; blocks those not blocked yet.
void hold(const sigset_t& set) noexcept {
  sigset_t current;
  pthread_sigmask(SIG_BLOCK, nullptr, &current);
  sigset_t to_block;
  sigemptyset(&to_block);
  for (int signo = 1; signo < NSIG; ++signo) {
    if (sigismember(&set, signo) != 1) continue;
    if (thread_mask.holders[signo]++ == 0 && sigismember(&current, signo) != 1) {
      sigaddset(&to_block, signo);
      sigaddset(&thread_mask.blocked_by_us, signo);
    }
  }
  pthread_sigmask(SIG_BLOCK, &to_block, nullptr);
}

// Drops the holds; unblocks what the first holder blocked once none is left.
void release(const sigset_t& set) noexcept {
  sigset_t to_unblock;
  sigemptyset(&to_unblock);
  for (int signo = 1; signo < NSIG; ++signo) {
    if (sigismember(&set, signo) != 1) continue;
    if (--thread_mask.holders[signo] == 0 && sigismember(&thread_mask.blocked_by_us, signo) == 1) {
      sigaddset(&to_unblock, signo);
      sigdelset(&thread_mask.blocked_by_us, signo);
    }
  }
  pthread_sigmask(SIG_UNBLOCK, &to_unblock, nullptr);
}

}  // namespace

SignalFd::SignalFd(EventLoop& loop, std::initializer_list<int> signals) : loop_(&loop), set_(checked_set(signals)) {
  // The simulator has no kernel to queue a signal, and a real fd would escape
  // its seeded schedule: refuse rather than wait for something never coming.
  if (loop.backend() == Backend::sim) throw_error(ENOTSUP, "duet::SignalSet on Backend::sim");
  hold(set_);
  fd_ = ::signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    release(set_);
    throw_error(err, "signalfd");
  }
}

SignalFd::~SignalFd() {
  loop_->close_fd(fd_);
  release(set_);
}

bool SignalFd::contains(int signo) const noexcept {
  return signo > 0 && signo < NSIG && sigismember(&set_, signo) == 1;
}

int SignalFd::try_read() const noexcept {
  signalfd_siginfo info{};
  const ssize_t n = ::read(fd_, &info, sizeof info);
  if (n < 0) return -errno;
  // The kernel hands out whole records only (EINVAL below one record's size).
  if (static_cast<std::size_t>(n) != sizeof info) return -EIO;
  return static_cast<int>(info.ssi_signo);
}

int SignalFd::step(int res, IoOp& op, IoOp::Clock::time_point deadline) const noexcept {
  if (res < 0) return res;  // the poll was cancelled, timed out or failed
  const int signo = try_read();
  if (signo != -EAGAIN) return signo;
  if (deadline != IoOp::Clock::time_point::max()) {
    const auto left = deadline - duet::now();
    if (left <= IoOp::Clock::duration::zero()) return -ETIMEDOUT;
    op.timeout_ = std::chrono::duration_cast<std::chrono::nanoseconds>(left);
  }
  op.kind_ = OpKind::poll;
  op.fd_ = fd_;
  op.flags_ = POLLIN;
  return poll_again;
}

}  // namespace duet
