// duet::kv::MultiState — one client's MULTI and WATCH state (Redis's
// client->mstate, CLIENT_MULTI, CLIENT_DIRTY_EXEC and watched_keys).
//
// Contract
// - ClientInfo::multi is null until the client's first MULTI or WATCH, so a
//   client that never uses them pays one pointer. Session queues commands
//   into it between MULTI and EXEC (kv/multi/transaction.hpp runs them);
//   flag() marks the transaction aborted (an error while queuing: EXEC then
//   answers -EXECABORT).
// - Watches: `ticket` from the first WATCH until unwatch_all(); `watched`
//   lists the keys, each with whether its entry lives in this client's own
//   store (`local`): those are removed at once, the others (another shard's)
//   when that shard next meets the released ticket (WatchTable).
// - The client's thread only.
//
//   MultiState& m = ensure_multi(client);
//   m.active = true; m.queue(cmd, argv);
//   m.unwatch_all(state.store());
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kv/detail/args.hpp"
#include "kv/multi/watch_table.hpp"

namespace duet::kv {

struct Command;
struct ClientInfo;
class Store;

struct QueuedCommand {
  const Command* command;
  Args argv;
};

struct WatchedKey {
  int db;
  std::string key;
  bool local;  // its entry is in this client's store
};

class MultiState {
 public:
  MultiState() = default;
  MultiState(const MultiState&) = delete;
  MultiState& operator=(const MultiState&) = delete;
  ~MultiState();

  void queue(const Command& cmd, std::span<const std::string_view> argv, bool denyoom);
  void flag() noexcept { dirty_exec = true; }
  // DISCARD, EXEC's end: the queue and the flags go, and the watches (Redis's discardTransaction).
  void discard(Store& local);
  // The ticket (made on first use).
  WatchTicket& ticket();
  void unwatch_all(Store& local);
  // The watch failed: a watched key changed (or expired) since WATCH.
  [[nodiscard]] bool watch_dirty() const noexcept { return ticket_ != nullptr && ticket_->dirty(); }
  [[nodiscard]] bool has_ticket() const noexcept { return ticket_ != nullptr; }
  [[nodiscard]] const WatchTicket* ticket_ptr() const noexcept { return ticket_; }
  // EXEC across shards: the job takes the ticket (with its reference) and the
  // keys, and unwatches them itself once it has checked them under its gates.
  [[nodiscard]] WatchTicket* take_watches(std::vector<WatchedKey>& keys) noexcept {
    keys = std::move(watched);
    watched.clear();
    return std::exchange(ticket_, nullptr);
  }

  bool active = false;      // between MULTI and EXEC / DISCARD
  bool dirty_exec = false;  // a command was refused while queuing
  bool denyoom = false;     // a queued command may grow memory (EXEC is refused past maxmemory)
  std::vector<QueuedCommand> queued;
  std::vector<WatchedKey> watched;

 private:
  WatchTicket* ticket_ = nullptr;
};

// The client's MultiState, made on first use.
MultiState& ensure_multi(ClientInfo& client);
// The client is in MULTI: commands are queued, not run.
[[nodiscard]] bool in_multi(const ClientInfo& client) noexcept;

}  // namespace duet::kv
