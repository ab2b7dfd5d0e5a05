// duet::detail::SimPoller — Backend::sim: the IoOp contract over a SimWorld.
//
// How it works: every op in flight waits in one list. A turn tries them all,
// in an order the world's seed draws, against the simulated network (SimNet);
// those that can finish do (a seeded few wait a turn more: the late wake-up
// of a real reactor), and deliver() hands them to their owners in that
// order. When none can, the virtual clock jumps to the next event — a sleep's
// deadline, a timeout, bytes arriving, a handshake ending — or to the turn's
// own deadline; with neither, the program waits for something that cannot
// happen, and the world reports a deadlock. Every delivery is folded into
// the world's trace hash. The world's simulated work (SimWorld::post_work:
// pool jobs, the AOF worker's jobs) runs in the turn too, once due.
// A cancel is asynchronous, as io_uring's: it reaches the op in the next
// sweep, where the op may still finish first with its own result.
// File ops go to the world's file system (an openat always does; an fsync
// waits a seeded delay); on a real descriptor they run inline, as on an
// epoll loop. Socket ops on real descriptors fail with EOPNOTSUPP (they
// would escape the seed).
// The loop's thread only. Loops on several threads under one world (a
// ShardSet's shards) take turns (detail/sim_threads.hpp): each hands the
// world's baton on where it would wait, and the world moves the clock once
// none has anything to do; their messages to each other are then part of
// the seeded order too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "duet/io/detail/poller.hpp"
#include "duet/io/sim_world.hpp"

namespace duet::detail {

class SimPoller final : public Poller {
 public:
  explicit SimPoller(const LoopOptions& options);
  SimPoller(const SimPoller&) = delete;
  SimPoller& operator=(const SimPoller&) = delete;
  SimPoller(SimPoller&&) = delete;
  SimPoller& operator=(SimPoller&&) = delete;
  ~SimPoller() override;

  void submit(IoOp& op) noexcept override;
  void cancel(IoOp& op) noexcept override;
  int abandon(IoOp& op) noexcept override;
  std::size_t turn(Clock::time_point deadline) override;
  void wake() noexcept override {}  // a simulation never sleeps for real
  void forget_fd(int fd) noexcept override;
  void release_recv_buffer(std::uint16_t id) noexcept override;

 private:
  static constexpr int blocked = INT_MIN + 1;  // == SimNet::blocked

  int attempt(IoOp& op) noexcept;
  int recv_pooled(IoOp& op) noexcept;
  int meet_cancel(IoOp& op) noexcept;
  int file_op(IoOp& op) noexcept;
  bool sweep() noexcept;
  std::size_t shared_turn(Clock::time_point deadline);
  [[nodiscard]] std::optional<Clock::time_point> next_event() noexcept;
  void leave(IoOp& op) noexcept;
  void settle(IoOp& op, int res) noexcept;

  std::unique_ptr<SimWorld> own_world_;  // when the thread had none
  SimWorld* world_;
  std::vector<IoOp*> waiting_;  // in flight, no result yet
  std::vector<IoOp*> order_;    // one sweep's seeded order
  bool skipped_ = false;        // a ready op waits a turn (late wake-up)
  bool pass_due_ = false;       // shared: the last turn was idle, hand the baton on first
  bool touched_ = false;        // an op was submitted or cancelled since the last turn began
  std::optional<Clock::time_point> pass_next_;
};

}  // namespace duet::detail
