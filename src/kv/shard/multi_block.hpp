// duet::kv::MultiBlock — a client blocked on keys of several shards
// (BLPOP a b 0 with a and b apart, BLMPOP, BRPOP; --threads N).
//
// Contract
// - The connection first runs the command as a job over every shard it
//   names, atomically, that cannot block (ShardDispatch): Redis's order of
//   keys for what is already there. Only when that finds nothing does it
//   start() a MultiBlock: one RemoteBlock part per shard, each blocking
//   there on that shard's keys, all sharing one BlockClaim.
// - Exactly one answer reaches the connection (ShardDispatch::on_multi_block):
//   - a part that finds an element (at once, or when a push serves it)
//     takes the claim first; a part that cannot take it answers nothing and
//     leaves the element to the next waiter of its shard;
//   - cancel(error): the timeout or CLIENT UNBLOCK withdraws the claim: when
//     no part took it first the answer is the timeout's null array (or
//     -UNBLOCKED), else the winning part's answer is on its way and stands;
//   - orphan(): the connection went; withdrawn, nothing answered (a part that
//     won meanwhile pops, and its answer is dropped, as RemoteBlock's).
//   Once decided, the other parts are orphaned: they leave their shards'
//   tables.
// - FIFO: each part queues on its shard in arrival order, so clients blocked
//   on one key are served first-come first-served there, as in Redis.
// - Lifetime: frees itself once decided (or orphaned) and every part has
//   answered. The origin's thread only.
//
//   MultiBlock* mb = MultiBlock::start(dispatch, shard, cmd, argv, db, resp);
//   ... timeout: mb->cancel(false); the connection goes: mb->orphan();
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace duet::kv {

class BlockClaim;
struct Command;
class KvShard;
class RemoteBlock;
class ShardDispatch;

class MultiBlock {
 public:
  static MultiBlock* start(ShardDispatch& connection, KvShard& origin, const Command& cmd,
                           std::span<const std::string_view> argv, int db, int resp);
  MultiBlock(const MultiBlock&) = delete;
  MultiBlock& operator=(const MultiBlock&) = delete;

  void cancel(bool error);
  void orphan();
  [[nodiscard]] std::string take_reply() { return std::move(reply_); }
  [[nodiscard]] ShardDispatch& connection() const noexcept { return *connection_; }

  // A part's answer is back (RemoteBlock).
  void on_answer(RemoteBlock& part);

 private:
  MultiBlock(ShardDispatch& connection, int resp);
  ~MultiBlock();

  void decide(std::string reply);
  void orphan_parts();
  void free_if_done();

  ShardDispatch* connection_;  // null once orphaned
  BlockClaim* claim_;
  std::vector<RemoteBlock*> parts_;
  std::vector<bool> answered_;  // by part
  std::size_t outstanding_ = 0;  // parts whose answer has not come back
  std::string reply_;
  int resp_;
  bool decided_ = false;  // the answer is known (sent to the connection, or nobody wants it)
};

// Whether a blocking command pops from whichever of its keys is ready
// (BLPOP BRPOP BLMPOP), so that its keys may wait on several shards.
[[nodiscard]] bool pops_from_any_key(const Command& cmd) noexcept;

}  // namespace duet::kv
