#include "kv/store.hpp"

namespace duet::kv {

void Store::flush_all() {
  for (auto& db : dbs_) db.clear();
}

void Store::watch(int db, std::string_view key, WatchTicket* ticket, std::int64_t now) {
  if (watches_ == nullptr) {
    watches_ = std::make_unique<WatchTable>();
    for (int i = 0; i < db_count; ++i) dbs_[static_cast<std::size_t>(i)].attach_watches(watches_.get(), i);
  }
  watches_->watch(db, key, ticket, dbs_[static_cast<std::size_t>(db)].holds_expired(key, now));
}

void Store::unwatch(int db, std::string_view key, const WatchTicket* ticket) {
  if (watches_ != nullptr) watches_->unwatch(db, key, ticket);
}

bool Store::watched_key_expired(int db, std::string_view key, const WatchTicket* ticket, std::int64_t now) const {
  return watches_ != nullptr && watches_->watched_alive(db, key, ticket) &&
         dbs_[static_cast<std::size_t>(db)].holds_expired(key, now);
}

std::size_t Store::active_expire_cycle(std::int64_t now, std::size_t budget) {
  purge_watches();
  // Split the budget over the databases that have volatile keys, starting where
  // the last cycle stopped so no database is starved when the budget runs out.
  std::size_t removed = 0;
  for (int n = 0; n < db_count && budget > 0; ++n) {
    Keyspace& db = dbs_[next_db_];
    next_db_ = (next_db_ + 1) % db_count;
    std::size_t share = db.volatile_count() < budget ? db.volatile_count() : budget;
    if (share == 0) continue;
    removed += db.expire_some(now, share);
    budget -= share;
  }
  return removed;
}

std::size_t Store::used_memory() const noexcept {
  std::size_t total = detail::CountingAllocator<char>::allocated_bytes() + sizeof(*this);
  for (const auto& db : dbs_) total += db.overhead_bytes();
  return total;
}

std::uint64_t Store::expired_keys() const noexcept {
  std::uint64_t total = 0;
  for (const auto& db : dbs_) total += db.expired_count();
  return total;
}

std::uint64_t Store::next_random() noexcept {
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return rng_ * 2685821657736338717ull;
}

}  // namespace duet::kv
