// EpollPoller — how the reactor works.
//
// An op first runs its syscall at once (fds are O_NONBLOCK). Most recv/send/accept
// calls on a busy connection succeed right there, and the result is queued for
// delivery at the end of the turn: no epoll traffic at all.
//
// Only on EAGAIN (or EINPROGRESS for connect) does the op park on its fd, in the
// readers or the writers queue. The fd is registered with epoll the first time
// anything parks on it: EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, once, never
// modified or deleted per wait. EPOLL_CTL_ADD reports readiness that already
// exists, so registering after the failed syscall cannot lose a wake-up, and with
// edge triggering a later edge arrives for any new data or space. When an edge
// arrives we retry the parked ops of that direction in FIFO order until one gets
// EAGAIN again. A reader and a writer on the same fd therefore never steal each
// other's events, and two readers are served in order. Each fd also remembers,
// per direction, whether its last syscall hit EAGAIN with no edge since: then a
// new op parks at once instead of making a syscall bound to fail.
//
// Poll ops (OpKind::poll) wait apart, in a third queue: one may ask for both
// directions, so any edge retries each of them, and each asks poll(2) for its
// own flags. poll(2) drains nothing and tells the truth, so a poll op always
// makes its syscall and leaves the per-direction hints alone.
//
// Timers (sleep ops and per-op timeouts) live in a min-heap keyed by expires_;
// the earliest one bounds the epoll_pwait2 timeout (nanosecond precision). An
// expired per-op timeout unparks the op and completes it with -ETIMEDOUT.
//
// Wake-ups: an eventfd registered edge-triggered; wake() writes 1 to it, which is
// async-signal-safe. Every write to an eventfd wakes its waiters, and epoll then
// queues a new edge for it, so the turn never reads the counter back: one syscall
// per wake-up instead of two (the counter would need 2^64 writes to fill). A
// message from another thread writes it only when the loop announced it may
// sleep (Poller::may_sleep).
//
// OpKind::recv_pooled's buffers and its starved queue: epoll_recv_pool.cpp.
// How an op leaves early (timeout, cancel, abandon, close_fd): epoll_cancel.cpp.
#include "duet/io/detail/epoll_poller.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <system_error>

#include "duet/io/file_ops.hpp"

namespace duet::detail {

namespace {
constexpr std::size_t max_events = 256;
constexpr int inline_budget_per_turn = 256;
constexpr std::size_t max_transfer = std::size_t{1} << 30;

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

bool waits_for_write(const IoOp& op) noexcept {
  switch (op.kind_) {
    case OpKind::write:
    case OpKind::send:
    case OpKind::sendmsg:
    case OpKind::connect:
      return true;
    default:
      return false;
  }
}

int result(long r) noexcept { return r >= 0 ? static_cast<int>(r) : -errno; }
}  // namespace

EpollPoller::EpollPoller(const LoopOptions& options)
    : Poller(options),
      epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      events_(max_events),
      inline_budget_(inline_budget_per_turn) {
  if (!epoll_fd_) throw_errno("epoll_create1");
  if (!wake_fd_) throw_errno("eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLET;
  ev.data.fd = wake_fd_.get();
  if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.get(), &ev) != 0) throw_errno("epoll_ctl");
}

// The syscall behind each kind. retry: a connect already in progress reads its
// outcome from SO_ERROR instead of connecting again.
int EpollPoller::attempt(IoOp& op, bool retry) noexcept {
  const std::size_t len = std::min<std::size_t>(op.len_, max_transfer);  // results fit an int
  switch (op.kind_) {
    case OpKind::read:
      return result(op.offset_ < 0 ? ::read(op.fd_, op.buf_, len) : ::pread(op.fd_, op.buf_, len, op.offset_));
    case OpKind::write:
      return result(op.offset_ < 0 ? ::write(op.fd_, op.buf_, len) : ::pwrite(op.fd_, op.buf_, len, op.offset_));
    case OpKind::recv:
      return result(::recv(op.fd_, op.buf_, len, op.flags_));
    case OpKind::recv_pooled:
      return recv_pooled(op);
    case OpKind::send:
      return result(::send(op.fd_, op.buf_, len, op.flags_ | MSG_NOSIGNAL));
    case OpKind::sendmsg:
      return result(::sendmsg(op.fd_, static_cast<const msghdr*>(op.buf_), op.flags_ | MSG_NOSIGNAL));
    case OpKind::recvmsg:
      return result(::recvmsg(op.fd_, static_cast<msghdr*>(op.buf_), op.flags_));
    case OpKind::accept:
      return result(::accept4(op.fd_, op.addr_, op.addr_ != nullptr ? &op.addrlen_ : nullptr, op.flags_));
    case OpKind::connect: {
      if (!retry) {
        const int r = result(::connect(op.fd_, op.addr_, op.addrlen_));
        return r == -EINPROGRESS ? -EAGAIN : r;
      }
      int error = 0;
      socklen_t len = sizeof error;
      if (::getsockopt(op.fd_, SOL_SOCKET, SO_ERROR, &error, &len) != 0) return -errno;
      return -error;
    }
    case OpKind::poll: {
      pollfd pfd{op.fd_, static_cast<short>(op.flags_), 0};
      const int r = ::poll(&pfd, 1, 0);
      if (r < 0) return -errno;
      return r == 0 ? -EAGAIN : pfd.revents;
    }
    case OpKind::openat:
    case OpKind::fsync:
    case OpKind::statx:
    case OpKind::close:
      return file_syscall(op);  // blocks this thread: duet::File sends these to the blocking pool
    case OpKind::nop:
    case OpKind::sleep:
      break;
  }
  return 0;
}

void EpollPoller::submit(IoOp& op) noexcept {
  started(op);
  if (op.kind_ == OpKind::nop) return finish(op, 0);
  if (op.kind_ == OpKind::sleep) {
    op.state_ = OpState::waiting;
    op.expires_ = op.deadline_;
    try {
      timers_.push(op);
    } catch (...) {
      finish(op, -ENOMEM);
    }
    return;
  }
  const int r = try_syscall(op);
  if (r == -EAGAIN) return park(op);
  if (r == -ENOBUFS) return starve(op);
  finish(op, r);
}

// The first syscall of an op, skipped when the fd is known not ready: after an
// EAGAIN only a new edge can change that (edge-triggered epoll reports every
// arrival of data or space), so a request-response stream saves the EAGAIN
// recv that would follow each send. Asio's reactor does the same.
int EpollPoller::try_syscall(IoOp& op) noexcept {
  const auto fd = static_cast<std::size_t>(op.fd_);
  if (op.kind_ != OpKind::poll && op.fd_ >= 0 && fd < fds_.size() && fds_[fd].registered && !fds_[fd].hangup) {
    const FdWaiters& w = fds_[fd];
    if (!(waits_for_write(op) ? w.writable : w.readable)) return -EAGAIN;
  }
  const int r = attempt(op, false);
  note_result(op, r);
  return r;
}

// EAGAIN, or a short read/write on a byte stream (the queue was drained or
// filled), means: no point trying again before the next edge. Not after EOF
// (r == 0: no edge will ever come again) and not for MSG_PEEK (drains nothing).
void EpollPoller::note_result(const IoOp& op, int r) noexcept {
  const auto fd = static_cast<std::size_t>(op.fd_);
  if (op.kind_ == OpKind::poll || op.fd_ < 0 || fd >= fds_.size() || !fds_[fd].registered) return;
  FdWaiters& w = fds_[fd];
  const bool transfer = op.kind_ == OpKind::recv || op.kind_ == OpKind::recv_pooled || op.kind_ == OpKind::send ||
                        op.kind_ == OpKind::read || op.kind_ == OpKind::write;
  const bool drained = w.stream && transfer && r > 0 && static_cast<std::size_t>(r) < op.len_ &&
                       (op.flags_ & MSG_PEEK) == 0;
  if (r == -EAGAIN || drained) (waits_for_write(op) ? w.writable : w.readable) = false;
}

int EpollPoller::start(IoOp& op) noexcept {
  const bool syscall = op.kind_ != OpKind::nop && op.kind_ != OpKind::sleep && op.kind_ != OpKind::poll;
  if (!syscall || inline_budget_ <= 0) {
    submit(op);
    return pending;
  }
  const int r = try_syscall(op);
  if (r != -EAGAIN && r != -ENOBUFS) {
    --inline_budget_;
    op.state_ = OpState::done;
    return r;
  }
  started(op);
  if (r == -ENOBUFS) {
    starve(op);
  } else {
    park(op);
  }
  return pending;
}

OpQueue& EpollPoller::queue_for(IoOp& op) noexcept {
  FdWaiters& w = fds_[static_cast<std::size_t>(op.fd_)];
  if (op.kind_ == OpKind::poll) return w.pollers;
  return waits_for_write(op) ? w.writers : w.readers;
}

void EpollPoller::park(IoOp& op) noexcept {
  try {
    if (fds_.size() <= static_cast<std::size_t>(op.fd_)) fds_.resize(static_cast<std::size_t>(op.fd_) + 1);
    FdWaiters& w = fds_[static_cast<std::size_t>(op.fd_)];
    if (!w.registered) {
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
      ev.data.fd = op.fd_;
      if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, op.fd_, &ev) != 0) return finish(op, -errno);
      w.registered = true;
      int type = SOCK_STREAM;  // pipes and other non-sockets are byte streams too
      socklen_t len = sizeof type;
      w.stream = ::getsockopt(op.fd_, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type == SOCK_STREAM;
    }
    // A recv_pooled that starved first keeps the timer it started then: its
    // timeout counts from submission, as on io_uring.
    if (op.timeout_.count() > 0 && !TimerHeap::contains(op)) {
      op.expires_ = Clock::now() + op.timeout_;
      timers_.push(op);
    }
  } catch (...) {
    return finish(op, -ENOMEM);
  }
  op.state_ = OpState::waiting;
  queue_for(op).push_back(op);
  if (op.kind_ == OpKind::poll) return;
  FdWaiters& w = fds_[static_cast<std::size_t>(op.fd_)];
  (waits_for_write(op) ? w.writable : w.readable) = false;  // parked after an EAGAIN
}

void EpollPoller::retry(OpQueue& waiters) noexcept {
  while (IoOp* op = waiters.front()) {
    const int r = attempt(*op, true);
    note_result(*op, r);
    if (r == -EAGAIN) return;
    waiters.pop_front();
    if (r == -ENOBUFS) {  // keeps its timer; tries again once a buffer is back
      starve(*op);
      continue;
    }
    timers_.remove(*op);
    finish(*op, r);
  }
}

// Poll ops after an edge: each for its own flags, so one still waiting does
// not hold back the next.
void EpollPoller::retry_pollers(OpQueue& pollers) noexcept {
  OpQueue still = std::move(pollers);
  while (IoOp* op = still.pop_front()) {
    const int r = attempt(*op, true);
    if (r == -EAGAIN) {
      pollers.push_back(*op);
    } else {
      timers_.remove(*op);
      finish(*op, r);
    }
  }
}

void EpollPoller::dispatch(const epoll_event& event) noexcept {
  if (event.data.fd == wake_fd_.get()) return;  // edge-triggered: nothing to drain
  const auto fd = static_cast<std::size_t>(event.data.fd);
  if (fd >= fds_.size()) return;
  const std::uint32_t error = EPOLLERR | EPOLLHUP;
  FdWaiters& w = fds_[fd];
  if ((event.events & (EPOLLRDHUP | error)) != 0) w.hangup = true;  // final: always try from now on
  if ((event.events & (EPOLLIN | EPOLLRDHUP | error)) != 0) {
    w.readable = true;
    retry(w.readers);
  }
  if ((event.events & (EPOLLOUT | error)) != 0) {
    w.writable = true;
    retry(w.writers);
  }
  if (!w.pollers.empty()) retry_pollers(w.pollers);
}

std::size_t EpollPoller::turn(Clock::time_point deadline) {
  inline_budget_ = inline_budget_per_turn;
  if (!starved_.empty()) feed_starved();
  // Results already waiting: deliver them without asking the kernel, but never
  // skip polling two turns in a row, so a stream of instant results cannot
  // starve readiness. Saves one epoll_pwait2 per request in ping-pong traffic.
  if (has_finished() && polled_last_) {
    polled_last_ = false;
  } else {
    poll(deadline);
    polled_last_ = true;
  }
  if (!timers_.empty()) expire_timers(Clock::now());
  const std::size_t messages = drain_inbox();
  return messages + deliver();
}

void EpollPoller::poll(Clock::time_point deadline) {
  if (has_finished()) deadline = Clock::time_point::min();
  if (!timers_.empty() && timers_.top()->expires_ < deadline) deadline = timers_.top()->expires_;
  timespec ts{};
  const timespec* wait = nullptr;  // null: block without limit
  if (deadline != Clock::time_point::max()) {
    const auto now = Clock::now();  // compare first: min() - now would overflow
    const auto left = deadline <= now ? Clock::duration::zero() : deadline - now;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    wait = &ts;
  }
  const bool blocks = wait == nullptr || ts.tv_sec != 0 || ts.tv_nsec != 0;
  if (blocks && (spin_for_reply(deadline) || !may_sleep())) {  // a message waits in the inbox: only look
    ts = timespec{};
    wait = &ts;
  }
  const int n = wait_for_events(wait);
  if (blocks) awake();
  if (n < 0 && errno != EINTR) throw_errno("epoll_wait");
  for (int i = 0; i < n; ++i) dispatch(events_[static_cast<std::size_t>(i)]);
}

// epoll_pwait2 (Linux 5.11) takes a nanosecond timeout. Older kernels and
// valgrind (which does not know syscall 441) say ENOSYS: from then on use
// epoll_wait, rounding the timeout up to whole milliseconds so that a deadline
// is never reported early.
int EpollPoller::wait_for_events(const timespec* wait) noexcept {
  const int capacity = static_cast<int>(events_.size());
  if (has_pwait2_) {
    const int n = ::epoll_pwait2(epoll_fd_.get(), events_.data(), capacity, wait, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    has_pwait2_ = false;
  }
  int ms = -1;
  if (wait != nullptr) {
    const std::int64_t ns = std::int64_t{wait->tv_sec} * 1'000'000'000 + wait->tv_nsec;
    ms = static_cast<int>(std::min<std::int64_t>((ns + 999'999) / 1'000'000, INT_MAX));
  }
  return ::epoll_wait(epoll_fd_.get(), events_.data(), capacity, ms);
}

void EpollPoller::wake() noexcept {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_.get(), &one, sizeof one);
}

}  // namespace duet::detail
