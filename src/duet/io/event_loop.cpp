// EventLoop: a thin owner of one Poller plus the cross-thread stop flag, the
// cross-thread send() and the owner-thread checks. All the kernel work is in
// uring_poller.cpp and epoll_poller.cpp; the inbox is in poller.cpp.
#include "duet/io/event_loop.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "duet/io/detail/poller.hpp"
#include "duet/io/sys.hpp"

// Debug builds check the owner thread on every loop-thread-only call: one
// thread-local address compared with a member. Release builds (NDEBUG, meson's
// b_ndebug) compile the check out.
#ifdef NDEBUG
#define DUET_OWNER_ONLY(call) ((void)0)
#else
#define DUET_OWNER_ONLY(call) check_owner(call)
#endif

namespace duet {

namespace {
// Its address identifies the thread; its value is that thread's current().
// initial-exec: a %fs-relative load instead of a __tls_get_addr call on every
// send and owner check (as scheduler.cpp's: libduet is loaded at start-up).
[[gnu::tls_model("initial-exec")]] constinit thread_local EventLoop* thread_loop = nullptr;
}  // namespace

EventLoop::EventLoop(Backend backend, LoopOptions options)
    : backend_(backend), owner_(&thread_loop), poller_(detail::make_poller(backend, options)) {
  if (thread_loop == nullptr) thread_loop = this;
}

// Messages still queued run first (a heap message frees itself in run_), so
// that none is lost; the ops they start count as in flight below.
EventLoop::~EventLoop() {
  // A sender that has queued its message, or a stop() that has set the flag,
  // may not be done with us yet (the wake-up follows): wait until the last
  // one has left.
  while (senders_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  while (!poller_->inbox_empty()) poller_->drain_inbox();
  if (poller_->in_flight() != 0) {
    std::fprintf(stderr, "duet: EventLoop destroyed with %zu operation(s) in flight\n", poller_->in_flight());
    std::terminate();
  }
  if (thread_loop == this) thread_loop = nullptr;
}

EventLoop* EventLoop::current() noexcept { return thread_loop; }
bool EventLoop::on_owner_thread() const noexcept { return owner_ == &thread_loop; }

void EventLoop::check_owner(const char* call) const noexcept {
  if (on_owner_thread()) return;
  std::fprintf(stderr, "duet: EventLoop::%s called off the loop's owner thread (see event_loop.hpp)\n", call);
  std::abort();
}

void EventLoop::submit(IoOp& op) noexcept {
  DUET_OWNER_ONLY("submit");
  poller_->submit(op);
}
int EventLoop::start(IoOp& op) noexcept {
  DUET_OWNER_ONLY("start");
  return poller_->start(op);
}
void EventLoop::cancel(IoOp& op) noexcept {
  DUET_OWNER_ONLY("cancel");
  if (op.in_flight() && op.state_ != detail::OpState::remote) poller_->cancel(op);
}
void EventLoop::post(IoOp& op, int res) noexcept {
  DUET_OWNER_ONLY("post");
  poller_->post(op, res);
}
int EventLoop::abandon(IoOp& op) noexcept {
  DUET_OWNER_ONLY("abandon");
  if (!op.in_flight()) return op.res_;
  return op.state_ == detail::OpState::remote ? poller_->abandon_remote(op) : poller_->abandon(op);
}

void EventLoop::expect(IoOp& op) noexcept {
  DUET_OWNER_ONLY("expect");
  poller_->expect(op);
}
void EventLoop::fulfil(IoOp& op, int res) noexcept {
  DUET_OWNER_ONLY("fulfil");
  poller_->fulfil(op, res);
}
void EventLoop::await_reply() noexcept {
  DUET_OWNER_ONLY("await_reply");
  poller_->await_reply();
}
void EventLoop::reply_arrived() noexcept {
  DUET_OWNER_ONLY("reply_arrived");
  poller_->reply_arrived();
}

// Off the owner thread. The thread's own io_uring loop can put a CQE straight
// into ours (wake_peer); from anywhere else, the eventfd.
// push_message says true to one sender per sleep of ours: that one wakes us,
// now or (inside a turn of its own loop) at the end of that turn. Until then
// our flag stays clear, so the rest of its burst adds no wake-up.
//
// Once the message is queued its run may end our owner's use of us (a
// ShardSet finishing, a waiter destroying its loop), while this sender still
// has the wake-up to do: senders_ counts the senders not yet done with us,
// and the destructor waits for zero. A deferred wake-up keeps its count until
// the flush.
void EventLoop::send(LoopMessage& msg) noexcept {
  EventLoop* here = thread_loop;
  senders_.fetch_add(1, std::memory_order_relaxed);  // ordered before the push's release
  if (message_group_ != nullptr) count_send(here);
  if (!poller_->push_message(msg)) {
    senders_.fetch_sub(1, std::memory_order_release);
    return;
  }
  message_wakes_.fetch_add(1, std::memory_order_relaxed);
  if (here != nullptr && here != this && here->turning_) {
    try {
      here->wake_later_.push_back(this);
      return;
    } catch (...) {  // no memory for the list: wake now
    }
  }
  wake_from_here(here);
  senders_.fetch_sub(1, std::memory_order_release);
}

// Before the push: a message is counted sent before anyone can run it. A
// sender in the group counts in its own loop's plain counter (its owner is
// this thread), which the group reads only through take_messages_sent on
// that thread; the relaxed add is ordered before the receiver's subtraction
// by the push (release) and the pop (acquire) between them.
void EventLoop::count_send(EventLoop* here) noexcept {
  if (here != nullptr && here->message_group_ == message_group_ && !here->count_live_) {
    ++here->messages_sent_;
  } else {
    message_group_->fetch_add(1, std::memory_order_relaxed);
  }
}

void EventLoop::wake_from_here(EventLoop* here) noexcept {
  if (here != nullptr && here != this && here->poller_->wake_peer(*poller_)) return;
  poller_->wake();
}

std::size_t EventLoop::run_once() {
  DUET_OWNER_ONLY("run_once");
  return turn(Clock::time_point::min());
}
std::size_t EventLoop::run_once(Clock::time_point deadline) {
  DUET_OWNER_ONLY("run_once");
  return turn(deadline);
}

void EventLoop::run() {
  DUET_OWNER_ONLY("run");
  while (!stop_requested()) turn(forever);
  reset_stop();
}

// Sends made during the turn (by the callbacks and tasks it runs) wake their
// targets at its end, once each. Whatever may block comes after the flush.
// The hook runs before (to see what fibers did between turns) and after.
std::size_t EventLoop::turn(Clock::time_point deadline) {
  if (turn_hook_ != nullptr) turn_hook_(turn_ctx_);  // sees what ran between turns (fibers)
  turning_ = true;
  const std::size_t delivered = poller_->turn(deadline);
  turning_ = false;
  flush_wakes();
  messages_run_ += poller_->take_drained();
  if (turn_hook_ != nullptr) turn_hook_(turn_ctx_);
  return delivered;
}

void EventLoop::flush_wakes() noexcept {
  for (std::size_t i = 0; i < wake_later_.size(); ++i) {
    EventLoop* target = wake_later_[i];
    target->wake_from_here(this);
    target->senders_.fetch_sub(1, std::memory_order_release);
  }
  wake_later_.clear();
}

// The store happens before the eventfd write, and the loop re-checks the flag
// after every turn, so a stop is never lost between check and wait.
// A loop awake at the store may see it, return from run() and be destroyed
// before the wake-up below: stop() counts itself in senders_ first, as send()
// does, so the destructor waits for it. The add is sequenced before the
// store (release), so an owner that saw the flag sees the count too. Lock-free
// atomics only: still async-signal-safe.
void EventLoop::stop() noexcept {
  senders_.fetch_add(1, std::memory_order_relaxed);
  stop_.store(true, std::memory_order_release);
  poller_->wake();
  senders_.fetch_sub(1, std::memory_order_release);
}
void EventLoop::wake() noexcept { poller_->wake(); }

void EventLoop::release_recv_buffer(std::uint16_t id) noexcept {
  DUET_OWNER_ONLY("release_recv_buffer");
  poller_->release_recv_buffer(id);
}

void EventLoop::close_fd(int fd) noexcept {
  if (fd < 0) return;
  DUET_OWNER_ONLY("close_fd");
  poller_->forget_fd(fd);
  sys::close(fd);
}

void EventLoop::forget_fd(int fd) noexcept {
  DUET_OWNER_ONLY("forget_fd");
  if (fd >= 0) poller_->forget_fd(fd);
}

std::size_t EventLoop::in_flight() const noexcept { return poller_->in_flight(); }

bool EventLoop::idle() const noexcept {
  return poller_->in_flight() == 0 && !poller_->awaits_reply() && poller_->inbox_empty();
}

}  // namespace duet
