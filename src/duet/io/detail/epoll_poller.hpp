// duet::detail::EpollPoller — the reactor backend (see epoll_poller.cpp for how it works).
//
// Contract: Poller's. Every fd is registered once, edge-triggered, the first time
// an op on it has to wait; close_fd unregisters it and cancels what waits on
// it. Loop thread only, except wake() and push_message().
//
//   EpollPoller p;  p.submit(op);  p.turn(Clock::now() + 10ms);
#pragma once

#include <sys/epoll.h>

#include <vector>

#include "duet/io/detail/op_queue.hpp"
#include "duet/io/detail/poller.hpp"
#include "duet/io/detail/timer_heap.hpp"
#include "duet/io/unique_fd.hpp"

namespace duet::detail {

class EpollPoller final : public Poller {
 public:
  explicit EpollPoller(const LoopOptions& options);
  EpollPoller(const EpollPoller&) = delete;
  EpollPoller& operator=(const EpollPoller&) = delete;
  EpollPoller(EpollPoller&&) = delete;
  EpollPoller& operator=(EpollPoller&&) = delete;
  ~EpollPoller() override = default;

  void submit(IoOp& op) noexcept override;
  int start(IoOp& op) noexcept override;
  void cancel(IoOp& op) noexcept override;
  int abandon(IoOp& op) noexcept override;
  std::size_t turn(Clock::time_point deadline) override;
  void wake() noexcept override;
  void forget_fd(int fd) noexcept override;
  void release_recv_buffer(std::uint16_t id) noexcept override;

 private:
  // The ops parked on one fd, by direction: a reader and a writer wait apart;
  // poll ops, which may ask for both, wait in a queue of their own.
  struct FdWaiters {
    OpQueue readers;
    OpQueue writers;
    OpQueue pollers;
    bool registered = false;
    // False after EAGAIN until epoll reports an edge for that direction: until
    // then a syscall would only fail again, so ops park without trying.
    bool readable = true;
    bool writable = true;
    bool stream = true;   // a short transfer means "drained" (not so for datagrams)
    bool hangup = false;  // EOF, reset or error seen: no edge may ever come again
  };

  int attempt(IoOp& op, bool retry) noexcept;
  int recv_pooled(IoOp& op) noexcept;
  void starve(IoOp& op) noexcept;
  void feed_starved() noexcept;
  void leave_queue(IoOp& op) noexcept;
  int try_syscall(IoOp& op) noexcept;
  void note_result(const IoOp& op, int r) noexcept;
  void park(IoOp& op) noexcept;
  void unpark(IoOp& op) noexcept;
  void retry(OpQueue& waiters) noexcept;
  void retry_pollers(OpQueue& pollers) noexcept;
  void dispatch(const epoll_event& event) noexcept;
  void poll(Clock::time_point deadline);
  int wait_for_events(const timespec* wait) noexcept;
  void expire_timers(Clock::time_point now) noexcept;
  OpQueue& queue_for(IoOp& op) noexcept;

  UniqueFd epoll_fd_;
  UniqueFd wake_fd_;
  std::vector<FdWaiters> fds_;  // indexed by fd
  TimerHeap timers_;
  std::vector<epoll_event> events_;
  int inline_budget_ = 0;     // inline finishes left this turn (start)
  bool polled_last_ = false;  // did the previous turn call epoll_pwait2?
  bool has_pwait2_ = true;    // false once the kernel said ENOSYS
};

}  // namespace duet::detail
