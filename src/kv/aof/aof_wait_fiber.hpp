// duet::kv::wait_durable — the stackful driver's group-commit wait: a plain
// blocking call, `kv::wait_durable(rt.aof());` before sending replies.
//
// Contract
// - Returns at once when there is no AOF (nullptr) or nothing is pending;
//   otherwise parks the calling fiber until the records appended so far are
//   written (everysec, no) or on disk (always). The waiter record lives on the
//   fiber's stack; a parked fiber cannot go away, so it outlives its resume.
// - On a fiber of the scheduler whose loop runs the AOF.
//
//   if (auto out = session.output(); !out.empty()) {
//     kv::wait_durable(rt.aof());
//     conn.send_all(out, stop);
//   }
#pragma once

#include "kv/aof/aof_durability.hpp"
#include "kv/aof/durable_waiter.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::kv {

inline void wait_durable(AofDurability* aof) {
  if (aof == nullptr || !aof->must_wait()) return;
  struct FiberWaiter : DurableWaiter {
    fiber::Scheduler* scheduler = nullptr;
    fiber::detail::FiberRecord* fiber = nullptr;
    bool done = false;
  };
  FiberWaiter waiter;
  waiter.scheduler = fiber::Scheduler::current();
  waiter.fiber = waiter.scheduler->running();
  waiter.resume_ = [](DurableWaiter* w) noexcept {
    auto* self = static_cast<FiberWaiter*>(w);
    self->done = true;
    self->scheduler->make_ready(*self->fiber);
  };
  aof->wait(waiter);
  while (!waiter.done) waiter.scheduler->park();
}

}  // namespace duet::kv
