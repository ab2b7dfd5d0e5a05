// select, pselect, ppoll, epoll_wait and epoll_pwait on a fiber, all over the
// one hooked poll (poll_fibered in wait.cpp), so the fiber waits and the
// thread runs the others. Off fibers each is the real call.
//
// select's three fd_sets become one pollfd per fd (read: POLLIN, write:
// POLLOUT, except: POLLPRI) and back, with Linux's rules (fs/select.c): a
// hang-up or an error counts as readable, an error as writable, each set bit
// counts once, an fd that is not open fails the call with EBADF, and select
// writes the time left back into its timeval. An epoll fd is itself pollable
// (POLLIN while events are ready), so a blocking epoll_wait waits for that on
// the fiber and then takes the events with a real epoll_wait(…, 0).
//
// The signal mask of pselect, ppoll and epoll_pwait is applied to the first
// look only (a real call with timeout 0 and the mask: a pending signal the
// mask unblocks is delivered there, and the call fails with EINTR); while the
// fiber waits, the thread keeps its own mask, which other fibers share.
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>

#include <cerrno>
#include <chrono>
#include <new>
#include <vector>

#include "duet/stackful/hook/real.hpp"
#include "duet/stackful/hook/wait.hpp"

namespace duet::fiber::hook {
namespace {

using std::chrono::nanoseconds;

struct FdSets {
  fd_set* in;
  fd_set* out;
  fd_set* except;
};

constexpr short in_set = POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR;
constexpr short out_set = POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR;
constexpr short except_set = POLLPRI;

bool in(const fd_set* set, int fd) noexcept { return set != nullptr && FD_ISSET(fd, set); }

// Keeps fd's bit in set if asked and ready (1), clears it otherwise.
int mark(fd_set* set, const pollfd& p, short ready_events) noexcept {
  if (!in(set, p.fd)) return 0;
  if ((p.revents & ready_events) != 0) return 1;
  FD_CLR(p.fd, set);
  return 0;
}

int select_fibered(int nfds, FdSets sets, nanoseconds timeout, const sigset_t* mask) noexcept {
  if (nfds < 0) {
    errno = EINVAL;
    return -1;
  }
  if (nfds > FD_SETSIZE) nfds = FD_SETSIZE;  // an fd_set holds no more
  try {
    std::vector<pollfd> fds;
    for (int fd = 0; fd < nfds; ++fd) {
      const short events = static_cast<short>((in(sets.in, fd) ? POLLIN : 0) | (in(sets.out, fd) ? POLLOUT : 0) |
                                              (in(sets.except, fd) ? POLLPRI : 0));
      if (events != 0) fds.push_back(pollfd{fd, events, 0});
    }
    if (poll_fibered(fds.data(), fds.size(), timeout, mask) < 0) return -1;
    for (const pollfd& p : fds) {
      if ((p.revents & POLLNVAL) != 0) {
        errno = EBADF;  // the sets are left as they were, as Linux does
        return -1;
      }
    }
    int ready = 0;
    for (const pollfd& p : fds) {
      ready += mark(sets.in, p, in_set) + mark(sets.out, p, out_set) + mark(sets.except, p, except_set);
    }
    return ready;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return -1;
  }
}

int epoll_fibered(int epfd, epoll_event* events, int max_events, nanoseconds timeout, const sigset_t* mask) noexcept {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = timeout.count() < 0 ? Clock::time_point::max() : Clock::now() + timeout;
  for (bool first = true;; first = false) {
    const int n = first && mask != nullptr ? real().epoll_pwait(epfd, events, max_events, 0, mask)
                                           : real().epoll_wait(epfd, events, max_events, 0);
    if (n != 0 || timeout.count() == 0) return n;
    nanoseconds left = forever;
    if (deadline != Clock::time_point::max()) {
      left = std::chrono::duration_cast<nanoseconds>(deadline - Clock::now());
      if (left.count() <= 0) return 0;
    }
    // Ready events wake it; another thread may take them first: look again.
    pollfd p{epfd, POLLIN, 0};
    if (poll_fibered(&p, 1, left, nullptr) < 0) return -1;
  }
}

nanoseconds of_millis(int ms) noexcept { return ms < 0 ? forever : nanoseconds(std::chrono::milliseconds(ms)); }

// A timeout the kernel refuses (EINVAL), else the wait it asks for.
bool timeout_of(const timespec* t, nanoseconds& timeout) noexcept {
  if (t != nullptr && !valid_timespec(*t)) {
    errno = EINVAL;
    return false;
  }
  timeout = t == nullptr ? forever : duration_of(*t);
  return true;
}

}  // namespace
}  // namespace duet::fiber::hook

namespace hook = duet::fiber::hook;
using hook::real;

extern "C" {

// Linux takes a tv_usec of a million or more (it carries it into seconds) but
// not a negative field.
int select(int nfds, fd_set* in, fd_set* out, fd_set* except, timeval* tv) {
  if (!hook::on_fiber()) return real().select(nfds, in, out, except, tv);
  if (tv != nullptr && (tv->tv_sec < 0 || tv->tv_usec < 0)) {
    errno = EINVAL;
    return -1;
  }
  using Clock = std::chrono::steady_clock;
  std::chrono::nanoseconds timeout = hook::forever;
  if (tv != nullptr) {
    const timespec ts{tv->tv_sec + tv->tv_usec / 1'000'000, (tv->tv_usec % 1'000'000) * 1000};
    timeout = hook::duration_of(ts);
  }
  const auto start = Clock::now();
  const int n = hook::select_fibered(nfds, {in, out, except}, timeout, nullptr);
  if (tv != nullptr) {  // the time not waited, as Linux reports it
    const auto left = std::max(timeout - std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start),
                               std::chrono::nanoseconds::zero());
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(left).count();
    *tv = timeval{static_cast<time_t>(us / 1'000'000), static_cast<suseconds_t>(us % 1'000'000)};
  }
  return n;
}

int pselect(int nfds, fd_set* in, fd_set* out, fd_set* except, const timespec* ts, const sigset_t* mask) {
  if (!hook::on_fiber()) return real().pselect(nfds, in, out, except, ts, mask);
  std::chrono::nanoseconds timeout;
  if (!hook::timeout_of(ts, timeout)) return -1;
  return hook::select_fibered(nfds, {in, out, except}, timeout, mask);
}

int ppoll(pollfd* fds, nfds_t count, const timespec* ts, const sigset_t* mask) {
  if (!hook::on_fiber()) return real().ppoll(fds, count, ts, mask);
  std::chrono::nanoseconds timeout;
  if (!hook::timeout_of(ts, timeout)) return -1;
  return hook::poll_fibered(fds, count, timeout, mask);
}

int epoll_wait(int epfd, epoll_event* events, int max_events, int timeout_ms) {
  if (!hook::on_fiber()) return real().epoll_wait(epfd, events, max_events, timeout_ms);
  return hook::epoll_fibered(epfd, events, max_events, hook::of_millis(timeout_ms), nullptr);
}

int epoll_pwait(int epfd, epoll_event* events, int max_events, int timeout_ms, const sigset_t* mask) {
  if (!hook::on_fiber()) return real().epoll_pwait(epfd, events, max_events, timeout_ms, mask);
  return hook::epoll_fibered(epfd, events, max_events, hook::of_millis(timeout_ms), mask);
}

}  // extern "C"
