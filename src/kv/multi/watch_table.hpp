// duet::kv::WatchTicket, duet::kv::WatchTable — WATCH's side of the keyspace:
// which clients watch which keys, and the flag a change of one of them sets
// (Redis's watched_keys dicts and CLIENT_DIRTY_CAS, multi.c).
//
// Contract
// - A WatchTicket is one client's WATCH, from its first WATCH to its EXEC,
//   DISCARD, UNWATCH, RESET or disconnect (then release()). Each watched key
//   is an entry in the WatchTable of the store that owns the key — with
//   --threads N, another shard's — and holds a reference; so a shard may mark
//   a ticket dirty (an atomic flag) while its client lives on another thread.
//   A released ticket's entries are dropped where they live: at once on the
//   client's own store (WatchTable::unwatch), and on other shards the next
//   time their key is touched or watched, or by the store's cron (purge()).
// - touch(db, key): the key changed (a write that took effect, an expiry,
//   a flush: Redis's signalModifiedKey / touchAllWatchedKeysInDb): every live
//   ticket watching it becomes dirty. A key that had already expired when
//   it was watched is not "changed" by its removal (Redis 7.0: stale keys
//   do not fail EXEC); expired_since_watch() says, at EXEC, whether a key
//   alive at WATCH has expired since (isWatchedKeyExpired).
// - One table per Store, made on the first WATCH; Store::watching() is the
//   one check a write pays when nobody watches. The table: its store's
//   thread only. A ticket's flag and count: any thread.
//
//   WatchTicket* t = WatchTicket::make();
//   store.watch(0, "k", t, now);      // t->ref() for the entry
//   store.touch(0, "k");              // t->dirty() == true
//   store.unwatch(0, "k", t); t->release();
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "kv/detail/key_hash.hpp"

namespace duet::kv {

class WatchTicket {
 public:
  [[nodiscard]] static WatchTicket* make() { return new WatchTicket(); }
  WatchTicket(const WatchTicket&) = delete;
  WatchTicket& operator=(const WatchTicket&) = delete;

  void ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  // The last reference frees it (acq_rel: every use happens before the delete).
  void unref() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // The client is done with it: its entries are dropped where they live.
  void release() noexcept {
    released_.store(true, std::memory_order_release);
    unref();
  }
  // Release/acquire: a write that marked the ticket on another shard is seen
  // by an EXEC that ran after it there (a message orders the two).
  void mark_dirty() noexcept { dirty_.store(true, std::memory_order_release); }
  [[nodiscard]] bool dirty() const noexcept { return dirty_.load(std::memory_order_acquire); }
  [[nodiscard]] bool released() const noexcept { return released_.load(std::memory_order_acquire); }

 private:
  WatchTicket() = default;
  ~WatchTicket() = default;

  std::atomic<bool> dirty_{false};
  std::atomic<bool> released_{false};
  std::atomic<int> refs_{1};
};

class WatchTable {
 public:
  static constexpr int db_count = 16;

  WatchTable() = default;
  WatchTable(const WatchTable&) = delete;
  WatchTable& operator=(const WatchTable&) = delete;
  ~WatchTable();

  // `expired`: the key was present but already expired when watched.
  void watch(int db, std::string_view key, WatchTicket* ticket, bool expired);
  void unwatch(int db, std::string_view key, const WatchTicket* ticket);
  void touch(int db, std::string_view key, bool present_now);
  // A flush of `db`: `present(key)` says whether the key was in it (live or
  // expired, not yet removed): only those were changed (Redis 7.0).
  // A watcher that saw its key already expired is not changed by the flush
  // (multi.c touchAllWatchedKeysInDb: stale keys do not fail EXEC).
  template <class Present>
  void touch_db(int db, Present&& present) {
    for (auto& [key, watchers] : dbs_[static_cast<std::size_t>(db)]) {
      if (present(key)) touch_watchers(watchers, false);
    }
  }
  // Whether ticket's entry for key was alive at WATCH (expired at EXEC is then a change).
  [[nodiscard]] bool watched_alive(int db, std::string_view key, const WatchTicket* ticket) const;
  // Drops the entries of released tickets.
  void purge();
  [[nodiscard]] bool empty() const noexcept { return entries_ == 0; }
  [[nodiscard]] std::size_t entries() const noexcept { return entries_; }

 private:
  struct Watcher {
    WatchTicket* ticket;
    bool expired;  // the key was stale when watched
  };
  using Keys = absl::flat_hash_map<std::string, std::vector<Watcher>, NameHash, NameEq>;

  void touch_watchers(std::vector<Watcher>& watchers, bool present_now) noexcept;
  std::size_t drop_released(std::vector<Watcher>& watchers) noexcept;

  std::array<Keys, db_count> dbs_;
  std::size_t entries_ = 0;
};

}  // namespace duet::kv
