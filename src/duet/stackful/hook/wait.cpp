// Waiting for sockets on behalf of the hooks. On a fiber every wait is an
// IoOp of kind poll on the fiber's stack (io_uring: IORING_OP_POLL_ADD; epoll:
// readiness on the fd's registration), so the thread keeps running other
// fibers. Off fibers the real poll(2) blocks the thread, as the program
// expected. Nothing here throws: the hooks are C functions.
#include "duet/stackful/hook/wait.hpp"

#include <cerrno>
#include <climits>
#include <new>
#include <vector>

#include "duet/stackful/detail/fiber_op.hpp"
#include "duet/stackful/hook/fd_table.hpp"
#include "duet/stackful/hook/real.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace duet::fiber::hook {

namespace {

int millis_until(Deadline deadline) noexcept {
  if (deadline == Deadline::max()) return -1;
  const auto left = deadline - std::chrono::steady_clock::now();
  if (left <= left.zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

// poll_fibered's ops: each completion counts and wakes the fiber.
struct PollGroup {
  detail::FiberRecord* fiber_ = nullptr;
  std::size_t finished_ = 0;
};

struct PollWait : IoOp {
  PollGroup* group_ = nullptr;
};

void on_poll_done(IoOp* op, int /*res*/) noexcept {
  PollGroup& group = *static_cast<PollWait*>(op)->group_;
  ++group.finished_;
  Scheduler::current()->make_ready(*group.fiber_);
}

}  // namespace

bool on_fiber() noexcept { return in_fiber(); }

int wait_ready(int fd, short events, Deadline deadline) noexcept {
  if (on_fiber()) {
    detail::FiberOp op;
    op.kind_ = OpKind::poll;
    op.fd_ = fd;
    op.flags_ = events;
    if (deadline != Deadline::max()) {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= left.zero()) return -ETIMEDOUT;
      op.timeout_ = std::chrono::duration_cast<std::chrono::nanoseconds>(left);
    }
    const int res = detail::run_op(op);  // cannot throw: we are on a fiber
    // The wait has no stop token, so a cancel can only be the loop's close_fd
    // (another fiber closed fd): report what a call on a closed fd gives.
    if (res == -ECANCELED) return -EBADF;
    return res < 0 ? res : 0;
  }
  pollfd one{fd, events, 0};
  const int n = real().poll(&one, 1, millis_until(deadline));
  if (n < 0) return -errno;
  return n == 0 ? -ETIMEDOUT : 0;
}

void sleep_fibered(std::chrono::nanoseconds duration) noexcept { (void)sleep_for(duration); }

namespace {

// poll(NULL, 0, -1) and friends: a pause. The fiber sleeps a day at a time
// (a sleep op keeps the loop waiting in the kernel, as the thread would).
[[noreturn]] void sleep_forever() noexcept {
  for (;;) sleep_fibered(std::chrono::hours(24));
}

int first_look(pollfd* fds, nfds_t count, const sigset_t* mask) noexcept {
  if (mask == nullptr) return real().poll(fds, count, 0);
  const timespec zero{0, 0};
  return real().ppoll(fds, count, &zero, mask);
}

}  // namespace

int poll_fibered(pollfd* fds, nfds_t count, std::chrono::nanoseconds timeout, const sigset_t* mask) noexcept {
  const int ready = first_look(fds, count, mask);
  if (ready != 0 || timeout.count() == 0) return ready;
  try {
    Scheduler& scheduler = *Scheduler::current();
    PollGroup group{scheduler.running(), 0};
    std::vector<PollWait> waits(count);
    std::size_t submitted = 0;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].fd < 0) continue;
      PollWait& w = waits[i];
      w.group_ = &group;
      w.complete_ = &on_poll_done;
      w.kind_ = OpKind::poll;
      w.fd_ = fds[i].fd;
      w.flags_ = fds[i].events;
      if (timeout.count() > 0) w.timeout_ = timeout;
      fd_table().handed_to_loop(w.fd_);
      scheduler.loop().submit(w);
      ++submitted;
    }
    if (submitted == 0) {  // nothing to watch: poll() is just a sleep
      if (timeout.count() < 0) sleep_forever();
      sleep_fibered(timeout);
      return 0;
    }
    while (group.finished_ == 0) scheduler.park();
    for (auto& w : waits) {
      if (w.in_flight()) scheduler.loop().cancel(w);
    }
    while (group.finished_ < submitted) scheduler.park();  // the ops live in `waits`
    return real().poll(fds, count, 0);
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return -1;
  }
}

// fd stays open, so the dup2/dup3 that follows replaces its file atomically.
void forget_in_backend(int fd) noexcept {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || fd < 0) return;
  fd_table().loop_forgot(fd);
  scheduler->loop().forget_fd(fd);
}

void forget_if_loop_knows(int fd) noexcept {
  if (fd_table().get(fd) != nullptr || fd_table().loop_may_know(fd)) forget_in_backend(fd);
}

int close_managed(int fd) noexcept {
  fd_table().forget(fd);
  if (Scheduler* scheduler = Scheduler::current()) {
    fd_table().loop_forgot(fd);
    scheduler->loop().close_fd(fd);  // forgets the fd in the backend, then closes it
    return 0;
  }
  return real().close(fd);
}

}  // namespace duet::fiber::hook
