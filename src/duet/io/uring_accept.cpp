// UringPoller's half of OpKind::accept (see uring_poller.cpp for the proactor
// itself): why the ring never holds a listening socket.
//
// A request in an io_uring holds a reference to its file. An IORING_OP_ACCEPT
// waiting on a listener therefore keeps the socket alive after close(), and
// after the process is gone: a process killed by a signal cannot cancel
// anything, exit cancels only requests on io_uring files (not sockets), and
// the ring's teardown (io_ring_exit_work) runs later on a kernel work queue.
// Until it has, the socket stays in LISTEN and a server restarted at once gets
// EADDRINUSE although both set SO_REUSEADDR (measured on 6.x: 5-15 ms, more on
// a loaded machine).
//
// So an accept waits on an epoll set of the listener's own (an AcceptProxy):
// the ring polls the epoll fd, and an epoll set holds no reference to the
// files in it (their last close removes them from it). The listener closes
// the moment its fd does, at close() or at exit, and the port is free when
// the process is. An accept first tries accept4 at once (a queued connection
// needs no wait); on EAGAIN its poll is armed; when the poll fires it
// accepts, and if another accept took the connection first it polls again.
// Timeouts, cancels and abandon work on the poll as on any op (its SQE has
// the op as user_data and may carry a link timeout).
//
// Where no epoll set can be made (out of fds or memory) the accept falls back
// on IORING_OP_ACCEPT, which works but holds the socket as described above.
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <new>

#include "duet/io/detail/uring_poller.hpp"

namespace duet::detail {

namespace {
// The raw system call: a hook library (libduet_hook) interposes accept4 for
// fibers, and the poller must never wait inside it.
int accept_at_once(IoOp& op) noexcept {
  const long fd = ::syscall(SYS_accept4, op.fd_, op.addr_, op.addr_ != nullptr ? &op.addrlen_ : nullptr, op.flags_);
  return fd >= 0 ? static_cast<int>(fd) : -errno;
}
bool would_block(int res) noexcept { return res == -EAGAIN || res == -EWOULDBLOCK; }
IoOp* first_uncancelled(const OpQueue& ops) noexcept {
  IoOp* op = ops.front();
  while (op != nullptr && op->cancel_requested_) op = op->next_;
  return op;
}
}  // namespace

UringPoller::AcceptProxy* UringPoller::find_accept_proxy(int fd) noexcept {
  for (AcceptProxy& proxy : accept_proxies_) {
    if (proxy.fd == fd) return &proxy;
  }
  return nullptr;
}

// Level-triggered: the epoll fd reads as ready while the listener has a
// connection queued, so a poll armed after a missed wake-up still fires.
UringPoller::AcceptProxy* UringPoller::make_accept_proxy(int fd) noexcept {
  if (AcceptProxy* proxy = find_accept_proxy(fd)) return proxy;
  UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return nullptr;
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = fd;
  if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &event) != 0) return nullptr;
  try {
    accept_proxies_.push_back(AcceptProxy{fd, std::move(epoll), OpQueue()});
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  return &accept_proxies_.back();
}

// False: the op is taken care of (finished at once, or its poll armed);
// true: no epoll set could be made, queue an IORING_OP_ACCEPT.
bool UringPoller::prepare_accept(IoOp& op) noexcept {
  const int res = accept_at_once(op);
  if (!would_block(res)) {
    finish(op, res);
    return false;
  }
  AcceptProxy* proxy = make_accept_proxy(op.fd_);
  if (proxy == nullptr) return true;
  arm_accept_poll(op, *proxy);
  return false;
}

void UringPoller::arm_accept_poll(IoOp& op, AcceptProxy& proxy) noexcept {
  proxy.polling.push_back(op);
  push_sqes(op, proxy.epoll.get());
}

// Turns a CQE of an accept into the op's result. False: the connection went
// to another accept first, the op polls again (after the CQ ring is released:
// rearm_accepts).
bool UringPoller::settle_accept(IoOp& op, int& res) noexcept {
  AcceptProxy* proxy = find_accept_proxy(op.fd_);
  const bool polled = (proxy != nullptr && proxy->polling.remove(op)) || unowned_polls_.remove(op);
  if (!polled) return true;  // an IORING_OP_ACCEPT: res is the new fd
  if (res < 0) return true;  // cancelled, timed out, or the poll failed
  if (proxy == nullptr) {     // the listener was forgotten (closed) as the poll fired
    res = -ECANCELED;
    return true;
  }
  // Even with a cancel asked: the connection was there first, as an
  // IORING_OP_ACCEPT that completes before its cancel (the owner takes it).
  res = accept_at_once(op);
  if (!would_block(res)) return true;
  rearm_.push_back(op);
  return false;
}

void UringPoller::rearm_accepts() noexcept {
  while (IoOp* op = rearm_.pop_front()) {
    AcceptProxy* proxy = find_accept_proxy(op->fd_);
    if (proxy == nullptr || op->cancel_requested_) {
      finish(*op, -ECANCELED);
    } else {
      arm_accept_poll(*op, *proxy);
    }
  }
}

// Before fd closes: the polls on its epoll set are cancelled and reaped
// (their ops finish with -ECANCELED, delivered by the next turn), then the
// set is closed. The ring holds no reference to the listener either way;
// waiting keeps close_fd's rule that no op outlives it on a file it names.
// Bounded: a kernel that has not answered within forget_timeout (never
// seen) gets a line on stderr, and its ops wait in unowned_polls_, finished
// whenever their CQEs come. Nothing here makes a proxy (reap only finds
// them), so proxy stays valid throughout.
void UringPoller::forget_accepts(int fd) noexcept {
  AcceptProxy* proxy = find_accept_proxy(fd);
  if (proxy == nullptr) return;
  // One at a time: a cancel may reap (a full SQ), which unlinks ops from the list.
  while (IoOp* op = first_uncancelled(proxy->polling)) cancel(*op);
  const auto give_up = Clock::now() + forget_timeout;
  while (!proxy->polling.empty() && Clock::now() < give_up) {
    __kernel_timespec ts{0, 10'000'000};
    io_uring_cqe* cqe = nullptr;
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
    reap();
  }
  if (!proxy->polling.empty()) {
    std::fprintf(stderr, "duet: io_uring did not cancel the accepts on fd %d within %lld ms\n", fd,
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(forget_timeout).count()));
    while (IoOp* op = proxy->polling.pop_front()) unowned_polls_.push_back(*op);
  }
  accept_proxies_.erase(accept_proxies_.begin() + (proxy - accept_proxies_.data()));
}

}  // namespace duet::detail
