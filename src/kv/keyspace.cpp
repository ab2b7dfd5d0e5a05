#include "kv/keyspace.hpp"

#include "kv/multi/watch_table.hpp"

#include <algorithm>
#include <array>

namespace duet::kv {

Keyspace::Keyspace() : index_(0, SlotHash{this}, SlotEq{this}) {}

std::uint32_t Keyspace::allocate_slot() {
  if (!free_slots_.empty()) {
    std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  if ((slots_used_ >> chunk_bits) >= chunks_.size()) chunks_.push_back(std::make_unique<Entry[]>(chunk_size));
  return slots_used_++;
}

Entry& Keyspace::upsert(std::string_view key, std::int64_t now, bool& created) {
  const Hashed hashed{key, detail::key_hash(key)};  // hashed once, found or placed in one probe
  for (;;) {
    created = false;
    const std::uint32_t s = *index_.lazy_emplace(hashed, [&](const auto& construct) {
      created = true;
      const std::uint32_t fresh = allocate_slot();
      Entry& e = slot(fresh);
      e.key.assign(key);
      e.value.reset();
      e.slot = fresh;
      e.live = 1;
      e.has_expiry = 0;
      construct(fresh);
    });
    Entry& e = slot(s);
    if (created || !expired(e, now)) {
      e.lru = Entry::lru_clock(now);
      return e;
    }
    expire_entry(e);  // an expired key is a new one: gone (and logged) first
  }
}

// Three passes over at most 16 keys, each starting the loads the next needs,
// so the batch's misses overlap: index groups, then entries, then key and
// value bytes (a 16-byte key or a 1 KiB value lives outside its entry).
void Keyspace::prefetch(std::span<const std::string_view> keys) const noexcept {
  const std::size_t n = std::min(keys.size(), max_prefetch);
  std::array<std::size_t, max_prefetch> hashes{};
  for (std::size_t i = 0; i < n; ++i) hashes[i] = detail::key_hash(keys[i]);
  prefetch_hashed(std::span(hashes).first(n));
}

void Keyspace::prefetch_hashed(std::span<const std::size_t> hashes) const noexcept {
  const std::size_t n = std::min(hashes.size(), max_prefetch);
  std::array<std::uint32_t, max_prefetch> candidates{};
  constexpr std::uint32_t none = ~std::uint32_t{0};
  for (std::size_t i = 0; i < n; ++i) index_.prefetch(Probe{hashes[i], nullptr});
  for (std::size_t i = 0; i < n; ++i) {
    candidates[i] = none;
    (void)index_.find(Probe{hashes[i], &candidates[i]});
    if (candidates[i] != none) __builtin_prefetch(&slot(candidates[i]));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (candidates[i] == none) continue;
    const Entry& e = slot(candidates[i]);
    if (e.key.is_heap()) __builtin_prefetch(e.key.data());
    if (const void* p = e.value.data_hint()) __builtin_prefetch(p);
  }
}



bool Keyspace::erase(std::string_view key, std::int64_t now) {
  Entry* e = find(key, now);
  if (e == nullptr) return false;
  erase(*e);
  return true;
}

void Keyspace::erase(Entry& e) {
  std::uint32_t s = e.slot;
  set_expire(e, Entry::no_expiry);
  index_.erase(s);
  e.live = 0;
  e.key.clear();  // give the memory back now, not when the slot is reused
  e.value.reset();
  // The last key gone: give the memory back, but keep one chunk — a
  // database that empties and fills again (a queue's list popped empty,
  // then pushed: every BLPOP hand-off) would otherwise allocate and clear
  // 40 KiB per key (10% of a hand-off's CPU in a profile).
  if (index_.empty() && chunks_.size() > 1) {
    release_storage();
  } else {
    free_slots_.push_back(s);
  }
}

void Keyspace::expire_entry(Entry& e) {
  ++expired_;
  if (expire_hook_ != nullptr) expire_hook_(expire_context_, e);
  if (watches_ != nullptr) [[unlikely]] watches_->touch(db_index_, as_view(e.key), false);  // db.c: expiry signals
  if (event_hook_ != nullptr) event_hook_(event_context_, e);
  erase(e);
}

bool Keyspace::holds_expired(std::string_view key, std::int64_t now) const {
  auto it = index_.find(key);
  return it != index_.end() && expired(slot(*it), now);
}

void Keyspace::set_expire(Entry& e, std::int64_t at) {
  const bool has = at != Entry::no_expiry;
  if (e.has_expiry) {
    auto it = expires_.find(e.slot);
    if (has) {
      it->second.at = at;
      return;
    }
    std::uint32_t pos = it->second.pos;
    expires_.erase(it);
    std::uint32_t moved = volatile_.back();  // swap-remove
    volatile_[pos] = moved;
    volatile_.pop_back();
    if (moved != e.slot) expires_.find(moved)->second.pos = pos;
    e.has_expiry = 0;
    return;
  }
  if (!has) return;
  expires_.emplace(e.slot, Expiry{at, static_cast<std::uint32_t>(volatile_.size())});
  volatile_.push_back(e.slot);
  e.has_expiry = 1;
}

void Keyspace::clear() {
  if (watches_ != nullptr) [[unlikely]] {
    watches_->touch_db(db_index_, [this](std::string_view key) { return holds(key); });
  }
  release_storage();
}

void Keyspace::release_storage() {
  index_.clear();
  chunks_.clear();
  free_slots_.clear();
  volatile_.clear();
  expires_.clear();
  slots_used_ = 0;
  expire_cursor_ = 0;
}

std::size_t Keyspace::overhead_bytes() const noexcept {
  return chunks_.size() * chunk_size * sizeof(Entry) + index_.capacity() * (sizeof(std::uint32_t) + 1) +
         expires_.capacity() * (sizeof(std::pair<std::uint32_t, Expiry>) + 1) +
         (free_slots_.capacity() + volatile_.capacity()) * sizeof(std::uint32_t);
}

Entry* Keyspace::random(std::int64_t now, std::uint64_t random_bits) {
  while (!index_.empty()) {
    std::uint32_t s = static_cast<std::uint32_t>(random_bits % slots_used_);
    while (!slot(s).live) s = (s + 1) % slots_used_;
    Entry& e = slot(s);
    if (!expired(e, now)) return &e;
    expire_entry(e);
    random_bits = random_bits * 6364136223846793005ull + 1442695040888963407ull;
  }
  return nullptr;
}

std::size_t Keyspace::expire_some(std::int64_t now, std::size_t budget) {
  std::size_t removed = 0;
  for (std::size_t examined = 0; examined < budget && !volatile_.empty(); ++examined) {
    if (expire_cursor_ >= volatile_.size()) expire_cursor_ = 0;
    Entry& e = slot(volatile_[expire_cursor_]);
    if (expired(e, now)) {
      expire_entry(e);  // swap-remove brings an unexamined key to the cursor
      ++removed;
    } else {
      ++expire_cursor_;
    }
  }
  return removed;
}

}  // namespace duet::kv
