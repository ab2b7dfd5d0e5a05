// duet::detail::Poller — the interface each backend implements behind EventLoop.
//
// Contract: exactly EventLoop's per-op contract (io_op.hpp, event_loop.hpp); the
// loop forwards to it 1:1 and adds only the stop flag. make_poller is the one
// place where a Backend value turns into a backend type.
//
//   std::unique_ptr<Poller> p = make_poller(Backend::epoll, options);
//   p->submit(op); p->turn(deadline);
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "io/backend.hpp"
#include "io/io_op.hpp"

namespace duet {
struct LoopOptions;
}

namespace duet::detail {

class Poller {
 public:
  using Clock = std::chrono::steady_clock;

  Poller() = default;
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  Poller(Poller&&) = delete;
  Poller& operator=(Poller&&) = delete;
  virtual ~Poller() = default;

  virtual void submit(IoOp& op) noexcept = 0;
  virtual void cancel(IoOp& op) noexcept = 0;
  virtual int abandon(IoOp& op) noexcept = 0;
  // Push work, wait until something finishes, wake() or deadline (a deadline in
  // the past means "do not wait"), deliver completions. Returns deliveries.
  virtual std::size_t turn(Clock::time_point deadline) = 0;
  virtual void wake() noexcept = 0;  // async-signal-safe
  virtual void forget_fd(int fd) noexcept = 0;
  [[nodiscard]] virtual std::size_t in_flight() const noexcept = 0;
};

std::unique_ptr<Poller> make_poller(Backend backend, const LoopOptions& options);

}  // namespace duet::detail
