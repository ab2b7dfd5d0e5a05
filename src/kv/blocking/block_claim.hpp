// duet::kv::BlockClaim — one blocked client's right to be served, shared by
// its stand-ins on several shards (BLPOP a b with a and b on two shards,
// kv/shard/multi_block.hpp).
//
// Contract
// - take(who): the shard `who` (index + 1, never 0 or withdrawn_by) serves
//   the client: true for the first taker and again for that same taker,
//   false for everyone else. A stand-in takes it before it pops (or answers
//   an error), so two shards never both answer one client.
// - withdraw(): the client's own shard gives up waiting (timeout, CLIENT
//   UNBLOCK, the client went): true when nobody took it first — no shard
//   serves it afterwards; false when one did, whose answer is on its way.
// - Lifetime: a reference count (make() gives one); release() drops one.
// - Any thread; the decision is one compare-and-swap.
//
//   BlockClaim* claim = BlockClaim::make();
//   if (claim->take(shard + 1)) pop_and_answer(); else answer_nothing();
#pragma once

#include <atomic>

namespace duet::kv {

class BlockClaim {
 public:
  static constexpr unsigned char withdrawn_by = 255;

  static BlockClaim* make() { return new BlockClaim(); }
  BlockClaim(const BlockClaim&) = delete;
  BlockClaim& operator=(const BlockClaim&) = delete;

  [[nodiscard]] bool take(unsigned char who) noexcept {
    unsigned char open = 0;
    return state_.compare_exchange_strong(open, who, std::memory_order_acq_rel) || open == who;
  }
  [[nodiscard]] bool withdraw() noexcept { return take(withdrawn_by); }

  void retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  BlockClaim() = default;
  ~BlockClaim() = default;

  std::atomic<unsigned char> state_{0};  // 0: open; else who took it
  std::atomic<int> refs_{1};
};

}  // namespace duet::kv
