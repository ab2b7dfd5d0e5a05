// EventLoop: a thin owner of one Poller plus the cross-thread stop flag. All the
// kernel work is in uring_poller.cpp and epoll_poller.cpp.
#include "io/event_loop.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>

#include "io/detail/poller.hpp"

namespace duet {

EventLoop::EventLoop(Backend backend, LoopOptions options)
    : backend_(backend), poller_(detail::make_poller(backend, options)) {}

EventLoop::~EventLoop() {
  if (poller_->in_flight() != 0) {
    std::fprintf(stderr, "duet: EventLoop destroyed with %zu operation(s) in flight\n", poller_->in_flight());
    std::terminate();
  }
}

void EventLoop::submit(IoOp& op) noexcept { poller_->submit(op); }
int EventLoop::start(IoOp& op) noexcept { return poller_->start(op); }
void EventLoop::cancel(IoOp& op) noexcept {
  if (op.in_flight()) poller_->cancel(op);
}
void EventLoop::post(IoOp& op, int res) noexcept { poller_->post(op, res); }
int EventLoop::abandon(IoOp& op) noexcept { return op.in_flight() ? poller_->abandon(op) : op.res_; }

std::size_t EventLoop::run_once() { return poller_->turn(Clock::time_point::min()); }
std::size_t EventLoop::run_once(Clock::time_point deadline) { return poller_->turn(deadline); }

void EventLoop::run() {
  while (!stop_requested()) poller_->turn(forever);
  reset_stop();
}

// The store happens before the eventfd write, and the loop re-checks the flag
// after every turn, so a stop is never lost between check and wait.
void EventLoop::stop() noexcept {
  stop_.store(true, std::memory_order_release);
  poller_->wake();
}
void EventLoop::wake() noexcept { poller_->wake(); }

void EventLoop::release_recv_buffer(std::uint16_t id) noexcept { poller_->release_recv_buffer(id); }

void EventLoop::close_fd(int fd) noexcept {
  if (fd < 0) return;
  poller_->forget_fd(fd);
  ::close(fd);
}

void EventLoop::forget_fd(int fd) noexcept {
  if (fd >= 0) poller_->forget_fd(fd);
}

std::size_t EventLoop::in_flight() const noexcept { return poller_->in_flight(); }

}  // namespace duet
