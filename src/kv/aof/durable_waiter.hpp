// duet::kv::DurableWaiter — one connection waiting until the append-only file
// holds its writes (the group-commit wait), as an intrusive record like IoOp.
//
// Contract
// - The waiting voice owns the record (a coroutine frame or a fiber's stack),
//   fills resume_ and context_, and passes it to AofWriter::wait(). resume_ runs
//   exactly once, on the loop thread, when the log is far enough (target_
//   written, or on disk under appendfsync always); the record must stay alive
//   until then. The writer never allocates for a waiter.
//
//   struct W : DurableWaiter {}; W w; w.resume_ = [](DurableWaiter* d) noexcept { ... };
//   writer.wait(w);
#pragma once

#include <cstdint>

namespace duet::kv {

struct DurableWaiter {
  using Resume = void (*)(DurableWaiter* waiter) noexcept;

  DurableWaiter* next_ = nullptr;
  std::uint64_t target_ = 0;  // logical AOF offset to reach
  Resume resume_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace duet::kv
