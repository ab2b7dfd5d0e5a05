// duet::kv::aof_durable — the stackless driver's group-commit wait:
// `co_await aof_durable(rt.aof());` before sending replies.
//
// Contract
// - Ready at once when there is no AOF (nullptr) or nothing is pending;
//   otherwise the coroutine is suspended in the AofWriter's waiter list and
//   resumed on the loop thread once the records appended so far are written
//   (everysec, no) or on disk (always). The awaiter lives in the coroutine frame
//   (no allocation); destroying a suspended frame unregisters it.
// - Loop thread only.
//
//   if (auto out = session.output(); !out.empty()) {
//     co_await kv::aof_durable(rt.aof());
//     co_await conn.send_all(out, stop);
//   }
#pragma once

#include <coroutine>

#include "kv/aof/aof_durability.hpp"
#include "kv/aof/durable_waiter.hpp"

namespace duet::kv {

class DurableAwaiter : private DurableWaiter {
 public:
  explicit DurableAwaiter(AofDurability* aof) noexcept : aof_(aof) {}
  DurableAwaiter(const DurableAwaiter&) = delete;
  DurableAwaiter& operator=(const DurableAwaiter&) = delete;
  DurableAwaiter(DurableAwaiter&&) = delete;
  DurableAwaiter& operator=(DurableAwaiter&&) = delete;
  ~DurableAwaiter() {
    if (waiting_) aof_->forget(*this);
  }

  [[nodiscard]] bool await_ready() const noexcept { return aof_ == nullptr || !aof_->must_wait(); }
  void await_suspend(std::coroutine_handle<> handle) {
    handle_ = handle;
    resume_ = [](DurableWaiter* w) noexcept {
      auto* self = static_cast<DurableAwaiter*>(w);
      self->waiting_ = false;
      self->handle_.resume();
    };
    waiting_ = true;
    aof_->wait(*this);
  }
  void await_resume() const noexcept {}

 private:
  AofDurability* aof_;
  std::coroutine_handle<> handle_;
  bool waiting_ = false;
};

[[nodiscard]] inline DurableAwaiter aof_durable(AofDurability* aof) noexcept { return DurableAwaiter(aof); }

}  // namespace duet::kv
