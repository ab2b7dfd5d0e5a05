// duet::kv::Store — the 16 logical databases, active expiry and memory use.
//
// Contract
// - db(i) for 0 <= i < db_count; SELECT picks one per client.
// - active_expire_cycle(now, budget) is what the drivers call from a timer
//   (every 100 ms): it examines at most `budget` keys that carry an expiry,
//   round-robin over the databases, and removes those that have expired, so
//   keys nobody reads still go away. Returns how many it removed.
// - used_memory() is O(1)-ish: bytes of keys and values (counted by their
//   allocator) plus slot and index overhead of each database.
// - One thread owns it (the event loop's). Non-copyable, non-movable.
//
//   Store store;
//   store.db(0).upsert("k", now, created).value.set_string("v");
//   store.active_expire_cycle(now, 10'000);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "kv/blocking/block_table.hpp"
#include "kv/keyspace.hpp"
#include "kv/multi/watch_table.hpp"

namespace duet::kv {

class Store {
 public:
  static constexpr int db_count = 16;

  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  Store(Store&&) = delete;
  Store& operator=(Store&&) = delete;
  ~Store() = default;

  [[nodiscard]] Keyspace& db(int index) noexcept { return dbs_[static_cast<std::size_t>(index)]; }
  [[nodiscard]] const Keyspace& db(int index) const noexcept { return dbs_[static_cast<std::size_t>(index)]; }
  void flush_all();
  std::size_t active_expire_cycle(std::int64_t now, std::size_t budget);

  [[nodiscard]] std::size_t used_memory() const noexcept;
  [[nodiscard]] std::uint64_t expired_keys() const noexcept;
  // WATCH (kv/multi/watch_table.hpp). watching(): one branch for a write
  // when no client watches a key of this store.
  [[nodiscard]] bool watching() const noexcept { return watches_ != nullptr && !watches_->empty(); }
  void watch(int db, std::string_view key, WatchTicket* ticket, std::int64_t now);
  void unwatch(int db, std::string_view key, const WatchTicket* ticket);
  // Clients block on keys of this store (BLPOP ...: kv/blocking/).
  [[nodiscard]] BlockTable& blocks() {
    if (blocks_ == nullptr) blocks_ = std::make_unique<BlockTable>();
    return *blocks_;
  }
  [[nodiscard]] bool has_blocked() const noexcept { return blocks_ != nullptr && !blocks_->empty(); }
  [[nodiscard]] bool has_ready() const noexcept { return blocks_ != nullptr && blocks_->has_ready(); }
  // Someone watches or waits on a key here: a write's keys must be touched.
  [[nodiscard]] bool observed() const noexcept { return watching() || has_blocked(); }
  // The key changed (a write that took effect): its watchers' tickets go
  // dirty, and the clients blocked on it may be served.
  void touch(int db, std::string_view key) {
    if (watching()) [[unlikely]] watches_->touch(db, key, dbs_[static_cast<std::size_t>(db)].holds(key));
    if (has_blocked()) [[unlikely]] blocks_->signal(db, key);
  }
  // At EXEC: a key alive when `ticket` watched it has expired since.
  [[nodiscard]] bool watched_key_expired(int db, std::string_view key, const WatchTicket* ticket,
                                         std::int64_t now) const;
  // Drops the entries of tickets released on other shards (the cron).
  void purge_watches() {
    if (watches_ != nullptr) watches_->purge();
  }

  // xorshift64*: cheap randomness for RANDOMKEY (not for anything secret).
  [[nodiscard]] std::uint64_t next_random() noexcept;

 private:
  std::array<Keyspace, db_count> dbs_;
  std::unique_ptr<WatchTable> watches_;
  std::unique_ptr<BlockTable> blocks_;
  std::size_t next_db_ = 0;
  std::uint64_t rng_ = 0x9E3779B97F4A7C15ull;
};

}  // namespace duet::kv
