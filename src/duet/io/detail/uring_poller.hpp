// duet::detail::UringPoller — the io_uring proactor backend (see uring_poller.cpp).
//
// Contract: Poller's. The ring must be driven by the thread that created it
// (IORING_SETUP_SINGLE_ISSUER when the kernel has it), so create the EventLoop on
// the thread that runs it. The constructor throws std::system_error when no ring
// can be set up. Loop thread only, except wake() and push_message().
//
//   UringPoller p(LoopOptions{});  p.submit(op);  p.turn(EventLoop::forever);
#pragma once

#include <liburing.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "duet/io/detail/poller.hpp"
#include "duet/io/unique_fd.hpp"

namespace duet::detail {

class UringPoller final : public Poller {
 public:
  explicit UringPoller(const LoopOptions& options);
  UringPoller(const UringPoller&) = delete;
  UringPoller& operator=(const UringPoller&) = delete;
  UringPoller(UringPoller&&) = delete;
  UringPoller& operator=(UringPoller&&) = delete;
  ~UringPoller() override;

  void submit(IoOp& op) noexcept override;
  void cancel(IoOp& op) noexcept override;
  int abandon(IoOp& op) noexcept override;
  std::size_t turn(Clock::time_point deadline) override;
  void wake() noexcept override;
  bool wake_peer(Poller& target) noexcept override;
  [[nodiscard]] int message_ring_fd() const noexcept override { return msg_ring_ ? ring_.ring_fd : -1; }
  void forget_fd(int fd) noexcept override;
  void release_recv_buffer(std::uint16_t id) noexcept override;

  // The flags the ring was finally created with (for tests and logs).
  [[nodiscard]] unsigned setup_flags() const noexcept { return flags_; }

 private:
  static constexpr unsigned short buffer_group = 0;  // recv_pooled's provided buffers
  static std::size_t buf_ring_bytes(std::size_t entries) noexcept { return entries * sizeof(io_uring_buf); }

  io_uring_sqe* next_sqe(unsigned needed) noexcept;
  static void prepare(io_uring_sqe* sqe, IoOp& op) noexcept;
  void reap() noexcept;
  void arm_wake() noexcept;
  [[nodiscard]] bool spun_for_work(Clock::time_point deadline) noexcept;
  void queue_sqes(IoOp& op) noexcept;
  void push_sqes(IoOp& op, int poll_fd) noexcept;
  bool prepare_pooled(IoOp& op) noexcept;
  bool setup_buffer_ring() noexcept;
  bool settle_pooled(IoOp& op, const io_uring_cqe& cqe, int& res) noexcept;
  Clock::time_point tend_starved() noexcept;

  // OpKind::accept (uring_accept.cpp): the ring polls an epoll set holding the
  // listener, never the listener itself, so no request keeps its socket open.
  struct AcceptProxy {
    int fd;          // the listener
    UniqueFd epoll;  // an epoll set with fd alone in it
    OpQueue polling; // accepts whose poll on epoll is in the kernel
  };
  static constexpr std::chrono::seconds forget_timeout{1};  // forget_accepts' bound on the kernel
  AcceptProxy* find_accept_proxy(int fd) noexcept;
  AcceptProxy* make_accept_proxy(int fd) noexcept;
  bool prepare_accept(IoOp& op) noexcept;
  void arm_accept_poll(IoOp& op, AcceptProxy& proxy) noexcept;
  bool settle_accept(IoOp& op, int& res) noexcept;
  void rearm_accepts() noexcept;
  void forget_accepts(int fd) noexcept;

  io_uring ring_{};
  unsigned flags_ = 0;
  bool basic_setup_ = false;
  unsigned submit_batch_ = 0;   // LoopOptions::submit_batch (0: only at the turn)
  bool msg_ring_ = false;       // the kernel has IORING_OP_MSG_RING (and not basic setup)
  UniqueFd wake_fd_;
  IoOp wake_op_;                // an eventfd read kept in flight, not counted
  std::uint64_t wake_value_ = 0;
  // recv_pooled: the provided-buffer ring (group 0) over the pool's buffers,
  // or, where the kernel has none (before 5.19), the pool used as epoll does.
  enum class BufferRing : std::uint8_t { unset, provided, emulated };
  BufferRing ring_kind_ = BufferRing::unset;
  io_uring_buf_ring* buf_ring_ = nullptr;
  std::size_t in_ring_ = 0;  // provided buffers the kernel may still pick
  std::vector<AcceptProxy> accept_proxies_;  // one per listener accepted on (a server has one or two)
  OpQueue rearm_;          // accepts beaten to their connection, polled again once the CQ ring is released
  OpQueue unowned_polls_;  // polls of a forgotten listener the kernel had not yet answered (forget_accepts)
};

}  // namespace duet::detail
