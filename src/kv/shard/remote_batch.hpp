// duet::kv::RemoteBatch — single-shard commands one connection sends to the
// shard that owns their keys, and their replies on the way back.
//
// Contract
// - Built on the connection's shard (add(), one per command, in order) and
//   sent once (send()); on the owning shard it runs every command in order,
//   in one go, as soon as that shard's gate lets them (ShardGate::wait: a
//   batch of reads passes jobs that only read, no batch passes one queued
//   before it; a queued batch runs inside its turn, so it cannot starve),
//   then travels back and hands itself to its dispatch
//   (ShardDispatch::on_batch), which copies reply(i) into the connection's
//   output in request order. The owning shard may be the connection's own,
//   when its gate holds up a command there.
// - With an append-only file, the batch leaves the owning shard only once its
//   writes are safe there (the shard's AofDurability), so the connection's
//   reply, sent when the batch is back, follows its log record as on one shard.
// - If the connection went away meanwhile (orphan()), the batch still runs
//   (its writes were sent, as a write that reached Redis is applied) and goes
//   back to the pool on its way back. It owns itself from send() until then.
// - Thread rules: add/send/orphan on the origin shard's thread; the commands
//   run on the owner's thread; the message is only ever on one thread at a time.
//
//   RemoteBatch* b = RemoteBatch::make(dispatch, origin_shard, 1);
//   b->add(*find_command("get"), argv, 0);
//   b->send();   // later: dispatch.on_batch(*b) on this thread
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/loop_message.hpp"
#include "kv/aof/durable_waiter.hpp"
#include "kv/shard/shard_gate.hpp"

namespace duet::kv {

struct Command;
class KvShard;
class ServerState;
class ShardDispatch;

class RemoteBatch final : public LoopMessage, public GateWaiter {
 public:
  RemoteBatch() = default;
  RemoteBatch(const RemoteBatch&) = delete;
  RemoteBatch& operator=(const RemoteBatch&) = delete;
  ~RemoteBatch() = default;

  // From the origin shard's pool (buffers keep their capacity: no allocation
  // per batch once a connection has warmed up), and back to it once sent back
  // and read (or orphaned). The origin shard's thread.
  [[nodiscard]] static RemoteBatch* make(ShardDispatch& origin, KvShard& from, std::size_t to);
  static void recycle(KvShard& from, RemoteBatch* batch) noexcept;
  // The connection's reply holes that read this batch: the last one read
  // gives it back (drop_hole() true).
  void add_hole() noexcept { ++holes_; }
  [[nodiscard]] bool drop_hole() noexcept { return --holes_ == 0; }

  void add(const Command& cmd, std::span<const std::string_view> argv, int db, int resp);
  [[nodiscard]] std::size_t size() const noexcept { return commands_.size(); }
  [[nodiscard]] std::size_t target() const noexcept { return to_; }
  void send() noexcept;
  void orphan() noexcept { origin_ = nullptr; }
  // Replies of commands [first, first + count), back on the origin's thread.
  [[nodiscard]] std::string_view replies(std::size_t first, std::size_t count) const noexcept;
  [[nodiscard]] std::size_t reply_bytes() const noexcept { return out_.size(); }

 private:
  struct Queued {
    const Command* command;
    std::uint32_t first_arg;
    std::uint32_t argc;
    int db;
    int resp;  // the connection's protocol: the reply goes to it as written
  };

  static void arrive(LoopMessage* self) noexcept;
  static void resumed(GateWaiter* self) noexcept;
  static void returned(LoopMessage* self) noexcept;
  void run_all(KvShard& shard);
  void prefetch(ServerState& state, std::size_t first) const noexcept;
  void go_back() noexcept;
  void settle(KvShard& shard);

  ShardDispatch* origin_ = nullptr;
  KvShard* from_ = nullptr;
  std::size_t to_ = 0;
  std::size_t holes_ = 0;
  std::vector<std::string_view> argv_;  // run_all's, kept for its capacity
  std::vector<Queued> commands_;
  std::vector<std::uint32_t> arg_ends_;  // end of each argument in args_
  std::string args_;
  std::vector<std::uint32_t> reply_ends_;  // end of each command's reply in out_
  std::string out_;
  DurableWaiter durable_;
};

}  // namespace duet::kv
