// duet::kv::RemoteBlock — a blocking command (BLPOP ...) whose keys live on
// one shard other than the connection's, or on its own while a job holds the
// gate (--threads N): the client blocks where the keys are.
//
// Contract
// - start() sends the command to the keys' shard, where it runs as soon as
//   the gate lets a write pass, as a stand-in client that may block: served
//   at once, or registered in that shard's BlockTable like a local client.
//   Exactly one answer comes back (ShardDispatch::on_block): the immediate
//   reply, the served one (sent once the shard's writes are safe in the AOF),
//   or a timeout's or cancel's. The keys' shard decides alone, so a client is
//   never served twice nor served and timed out.
// - cancel(timeout) from the connection: its timeout passed (the answer is
//   then the timeout's null, unless a serve won the race: that answer
//   stands) or it went away (orphan(): no answer is wanted; one that was
//   served meanwhile is dropped, as a reply Redis sends to a socket that
//   just closed). A cancel may meet the command still queued at the gate:
//   it then never blocks.
// - Lifetime: shared by the origin and the messages in flight (an atomic
//   count; the gate holds one while it queues the command); the last of
//   them frees it. Thread rules: start/cancel/orphan and the answer on the
//   origin's thread; the command, the serve, the cancel and serve_again on
//   the keys' shard's. A part's BlockClaim is the only state both touch.
// - blocking_target(): the one shard whose keys a blocking command waits on
//   (BLMOVE's destination counts); false when they span several (the command
//   then runs as a job that cannot block, and then blocks if it found
//   nothing: kv/shard/shard_dispatch_blocking.cpp).
// - start_part(): the same, as one shard's part of a client blocked on keys
//   of several shards (kv/shard/multi_block.hpp). start_ready(): a BLMOVE to
//   another shard's list, answered source_ready; if that answer finds the
//   connection gone, the source's shard serves its next waiter (serve_again).
//
//   if (blocking_target(shard, cmd, argv, target)) RemoteBlock::start(dispatch, shard, target, cmd, argv, db, resp);
#pragma once

#include <atomic>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "duet/io/loop_message.hpp"
#include "kv/aof/durable_waiter.hpp"
#include "kv/client_registry.hpp"
#include "kv/detail/args.hpp"
#include "kv/shard/shard_gate.hpp"

namespace duet::kv {

struct Command;
class BlockClaim;
class KvShard;
class MultiBlock;
class ShardDispatch;

class RemoteBlock final : GateWaiter {
 public:
  static RemoteBlock* start(ShardDispatch& connection, KvShard& origin, std::size_t target, const Command& cmd,
                            std::span<const std::string_view> argv, int db, int resp);
  // One part of a MultiBlock: `argv` names this shard's keys only; the
  // stand-in pops only once it wins `claim`, and the answer (empty when it
  // lost or was orphaned) goes to `group`, not to the connection.
  // BLMOVE whose destination lives on another shard: the stand-in blocks on
  // the source and answers source_ready (pops nothing) once it could be
  // served; the connection then moves the element with a job.
  static RemoteBlock* start_ready(ShardDispatch& connection, KvShard& origin, std::size_t target, const Command& cmd,
                                  std::span<const std::string_view> argv, int db, int resp);
  static constexpr std::string_view source_ready = "+READY\r\n";
  static RemoteBlock* start_part(MultiBlock& group, KvShard& origin, std::size_t target, const Command& cmd,
                                 std::span<const std::string_view> argv, int db, int resp, BlockClaim& claim);
  RemoteBlock(const RemoteBlock&) = delete;
  RemoteBlock& operator=(const RemoteBlock&) = delete;

  // The timeout passed (or CLIENT UNBLOCK: error, its -UNBLOCKED): answer now if still blocked.
  void cancel(bool error);
  void orphan();  // the connection went: no answer wanted
  [[nodiscard]] std::string take_reply() { return std::move(reply_); }

 private:
  struct Message final : LoopMessage {
    RemoteBlock* self = nullptr;
  };
  enum class Cancel : unsigned char { none, timeout, error, silent };

  RemoteBlock(ShardDispatch& connection, KvShard& origin, std::size_t target);
  ~RemoteBlock();

  void send_there(const Command& cmd, std::span<const std::string_view> argv, int db, int resp);
  void send_cancel(Cancel how);
  void run_there();
  void answer_there();
  void go_back() noexcept;
  void drop() noexcept;
  static void arrive(LoopMessage* msg) noexcept;
  static void resumed(GateWaiter* self) noexcept;
  static void cancelled(LoopMessage* msg) noexcept;
  static void returned(LoopMessage* msg) noexcept;
  static void serve_again(LoopMessage* msg) noexcept;
  void serve_source();

  ShardDispatch* connection_;  // null once orphaned (origin thread)
  MultiBlock* group_ = nullptr;  // a part's: told of the answer, orphaned or not
  BlockClaim* claim_ = nullptr;  // a part's (a reference)
  KvShard* origin_;
  std::size_t target_;
  const Command* command_ = nullptr;
  Args argv_;
  ClientInfo client_;      // the stand-in on the target shard
  std::string reply_;
  Message there_, cancel_, back_;
  DurableWaiter durable_;
  Cancel requested_ = Cancel::none;  // origin: written before cancel_ is sent
  Cancel seen_ = Cancel::none;       // target: requested_ as cancel_ brought it
  bool cancel_sent_ = false;         // origin
  bool ran_ = false;                 // target
  bool answered_ = false;            // target: back_ was sent
  std::atomic<int> refs_{2};         // the origin's, and the answer's (back_); the gate's while queued there
};

[[nodiscard]] bool blocking_target(const KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                                   std::size_t& target);

}  // namespace duet::kv
