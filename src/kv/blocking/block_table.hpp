// duet::kv::BlockState, duet::kv::BlockTable — the clients blocked on keys
// by BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP and the sorted sets' BZPOPMIN,
// BZPOPMAX and BZMPOP (Redis's blocked.c and
// c->bpop), one table per Store.
//
// Contract
// - A client's BlockState (ClientInfo::block) is made on its first block and
//   kept. While `blocked`, it sits in the queue of each key it waits on, in
//   arrival order: a key's waiters are served first come, first served.
// - A write that makes a key a client waits on non-empty (Store::touch)
//   signals it; the key joins the ready list, and serve_blocked() (kv/blocking/
//   blocking.hpp) — run after the command, or after a whole EXEC or job, so
//   a push inside a transaction wakes nobody before it ends — pops for the
//   waiters. The served client's reply waits in `reply` and its waker runs;
//   its driver moves the reply out between sends (Session::collect_pushes).
// - unblock(b) takes b out of every queue (served, timed out, CLIENT
//   UNBLOCK, RESET, disconnect): nothing of it remains.
// - The store's thread only.
//
//   table.block(state);                 // state.request filled in
//   table.signal(0, "jobs");            // after an RPUSH on it
//   while (auto key = table.take_ready()) ... table.first(key->db, key->name, false) ...
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "kv/detail/key_hash.hpp"

namespace duet::kv {

class BlockClaim;
struct ClientInfo;

// What a blocked client waits for, and what it runs when served.
struct BlockRequest {
  // wait: WAIT, on no key; postpone: CLIENT PAUSE holds the command (not in the table);
  // zpop, zmpop: BZPOPMIN/BZPOPMAX and BZMPOP, on sorted sets (`left`: the minimum)
  enum class Kind : unsigned char { pop, move, mpop, wait, postpone, zpop, zmpop };
  Kind kind = Kind::pop;
  [[nodiscard]] bool on_zset() const noexcept { return kind == Kind::zpop || kind == Kind::zmpop; }
  bool left = true;     // pop from the head
  bool to_left = true;  // move: push at the head of dest
  std::string dest;     // move
  std::int64_t count = 1;  // mpop
  int db = 0;
  std::vector<std::string> keys;
};

class BlockState {
 public:
  using Waker = void (*)(void* context) noexcept;

  explicit BlockState(ClientInfo& client) noexcept : client_(client) {}
  BlockState(const BlockState&) = delete;
  BlockState& operator=(const BlockState&) = delete;
  ~BlockState() = default;

  [[nodiscard]] ClientInfo& client() noexcept { return client_; }
  void set_waker(Waker waker, void* context) noexcept {
    waker_ = waker;
    context_ = context;
  }
  // Done waiting: `reply` holds the answer; the driver is told.
  void finish() noexcept {
    blocked = false;
    answered = true;
    if (waker_ != nullptr) waker_(context_);
  }

  BlockRequest request;
  std::int64_t deadline_ms = 0;  // server clock; 0: no timeout
  // Blocked on another shard (kv/shard/remote_block.hpp): this state only
  // marks the connection as waiting; its timeout asks that shard to answer.
  using CancelRemote = void (*)(void* context, bool error);  // error: CLIENT UNBLOCK ... ERROR
  CancelRemote cancel_remote = nullptr;
  void* remote = nullptr;
  // A stand-in for a client blocked on keys of several shards: it pops only
  // after claim->take(claim_by) (kv/blocking/block_claim.hpp). Not owned.
  BlockClaim* claim = nullptr;
  unsigned char claim_by = 0;
  // A stand-in for a BLMOVE whose destination lives on another shard: when
  // its source can serve it, it answers +READY and pops nothing; the
  // client's shard then moves the element with a job over both shards.
  bool ready_only = false;
  bool blocked = false;          // in the table
  bool answered = false;         // `reply` waits for the driver
  std::string reply;

 private:
  ClientInfo& client_;
  Waker waker_ = nullptr;
  void* context_ = nullptr;
};

class BlockTable {
 public:
  static constexpr int db_count = 16;
  struct ReadyKey {
    int db;
    std::string name;
  };

  void block(BlockState& b);
  void unblock(BlockState& b);
  // The key may now hold what its waiters want: served by serve_blocked().
  void signal(int db, std::string_view key);
  [[nodiscard]] std::optional<ReadyKey> take_ready();
  [[nodiscard]] bool has_ready() const noexcept { return !ready_.empty(); }
  // The first waiter on `key` for a sorted set (`on_zset`) or a list.
  [[nodiscard]] BlockState* first(int db, std::string_view key, bool on_zset) const;
  [[nodiscard]] bool empty() const noexcept { return blocked_ == 0; }
  [[nodiscard]] std::size_t blocked() const noexcept { return blocked_; }
  // serve_blocked() is running: a command it runs does not start it again.
  bool serving = false;

 private:
  struct Waiters {
    std::deque<BlockState*> queue;
    bool ready = false;  // in ready_
  };
  using Keys = absl::flat_hash_map<std::string, Waiters, NameHash, NameEq>;

  std::array<Keys, db_count> dbs_;
  std::vector<ReadyKey> ready_;
  std::size_t blocked_ = 0;
};

}  // namespace duet::kv
