// duet::kv::Keyspace — one logical database: binary-safe string keys → values,
// each with an optional expiry time.
//
// Contract
// - Entries live in fixed-size chunks that never move, so an Entry* stays valid
//   across inserts and across erasing *other* keys; erase(entry) ends it.
// - find/upsert/erase take `now` (unix ms) and remove a key whose expiry has
//   passed before answering (lazy expiry; a key expires when now > expire_at, as
//   in Redis). expire_some() is the active half: the server's timer calls it to
//   reclaim keys nobody touches.
// - scan() gives Redis's SCAN guarantee: a key present for the whole iteration is
//   returned exactly once (cursors are slot numbers and entries never move; a key
//   added meanwhile may be missed, as Redis allows).
// - Not thread-safe: one event-loop thread owns the store. Non-copyable and
//   non-movable (the index's hasher points back at this object).
//
// Why abseil's flat_hash_set of 4-byte slot numbers instead of a
// flat_hash_map<string, Entry>: the map would move entries on every rehash, which
// rules out a stable SCAN cursor, O(1) random sampling (RANDOMKEY, active expiry)
// and pointer stability. The index keeps abseil's SIMD probing for lookups while
// the entries stay put.
//
//   Keyspace db;
//   bool created = false;
//   Entry& e = db.upsert("k", now_ms, created);
//   e.value.set_string("v");
//   Value::Scratch scratch;
//   if (Entry* found = db.find("k", now_ms)) reply.bulk(found->value.str(scratch));
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "kv/detail/counting_allocator.hpp"
#include "kv/detail/key_hash.hpp"
#include "kv/value/compact_string.hpp"
#include "kv/value/value.hpp"

namespace duet::kv {

class WatchTable;  // kv/multi/watch_table.hpp

inline std::string_view as_view(const KvString& s) noexcept { return {s.data(), s.size()}; }

// 40 bytes: the key (inline up to 15 bytes), the value (inline up to 15,
// an integer, or a pointer), the slot and the LRU clock. The expiry lives in
// Keyspace's side table, paid for only by keys that have one (Redis's
// `expires` dict, for the same reason: most keys never expire).
struct Entry {
  static constexpr std::int64_t no_expiry = -1;
  static constexpr std::uint32_t lru_mask = (1u << 24) - 1;
  CompactString key;
  Value value;
  std::uint32_t slot = 0;              // this entry's slot number in its Keyspace
  std::uint32_t lru : 24 = 0;          // seconds clock (mod 2^24) of the last access: OBJECT IDLETIME
  std::uint32_t live : 1 = 0;
  std::uint32_t has_expiry : 1 = 0;

  [[nodiscard]] static std::uint32_t lru_clock(std::int64_t now_ms) noexcept {
    return static_cast<std::uint32_t>(now_ms / 1000) & lru_mask;
  }
};
static_assert(sizeof(Entry) == 40);

class Keyspace {
 public:
  Keyspace();
  Keyspace(const Keyspace&) = delete;
  Keyspace& operator=(const Keyspace&) = delete;
  Keyspace(Keyspace&&) = delete;
  Keyspace& operator=(Keyspace&&) = delete;
  ~Keyspace() = default;

  // The live entry for `key`, its LRU clock set to `now` (Redis's lookupKey).
  [[nodiscard]] Entry* find(std::string_view key, std::int64_t now) { return find(key, detail::key_hash(key), now); }
  // The same without touching the LRU clock (LOOKUP_NOTOUCH: TYPE, OBJECT).
  [[nodiscard]] Entry* peek(std::string_view key, std::int64_t now) { return lookup(key, detail::key_hash(key), now); }
  // The entry for `key`, created with an empty value (created = true) if absent.
  Entry& upsert(std::string_view key, std::int64_t now, bool& created);
  bool erase(std::string_view key, std::int64_t now);
  // Starts loading what looking these keys up will touch — the index group,
  // then the entry, then the key's and value's bytes — so a pipelined batch
  // waits for its cache misses side by side instead of one after another
  // (at 100,000 keys a GET is mostly such waits). Changes nothing; absent
  // keys are fine. Uses the first max_prefetch keys.
  static constexpr std::size_t max_prefetch = 16;
  void prefetch(std::span<const std::string_view> keys) const noexcept;
  // The same for keys whose detail::key_hash the caller already has (a shard
  // that picked its own keys of a pipeline by their hash).
  void prefetch_hashed(std::span<const std::size_t> hashes) const noexcept;
  void erase(Entry& entry);
  void set_expire(Entry& entry, std::int64_t at);  // Entry::no_expiry persists
  // The entry's expiry (unix ms), or Entry::no_expiry.
  [[nodiscard]] std::int64_t expire_at(const Entry& entry) const noexcept {
    return entry.has_expiry ? expires_.find(entry.slot)->second.at : Entry::no_expiry;
  }
  // Called with each entry that expires (lazily or actively) just before it is
  // removed: the AOF logs a DEL for it, as Redis propagates expiries.
  using ExpireHook = void (*)(void* context, const Entry& entry);
  void set_expire_hook(ExpireHook hook, void* context) noexcept {
    expire_hook_ = hook;
    expire_context_ = context;
  }
  // The same moment for the keyspace event "expired" (kv/notify.hpp): a hook
  // of its own, as the AOF's and the events' owners install theirs apart
  // (the server state installs this one on its own store; a store of copies
  // has none, so it fires nothing).
  void set_event_hook(ExpireHook hook, void* context) noexcept {
    event_hook_ = hook;
    event_context_ = context;
  }
  // Removes every key; the watched ones that were here count as changed (FLUSHDB).
  void clear();

  // WATCH: the store's table (null until a client watches), and this
  // database's number in it. An expiry and clear() touch watched keys.
  void attach_watches(WatchTable* table, int db) noexcept {
    watches_ = table;
    db_index_ = db;
  }
  // The key is in the table, alive or expired but not yet removed.
  [[nodiscard]] bool holds(std::string_view key) const { return index_.find(key) != index_.end(); }
  // The key is in the table and its expiry has passed (Redis's keyIsExpired).
  [[nodiscard]] bool holds_expired(std::string_view key, std::int64_t now) const;

  [[nodiscard]] std::size_t size() const noexcept { return index_.size(); }
  [[nodiscard]] std::size_t volatile_count() const noexcept { return volatile_.size(); }
  [[nodiscard]] std::uint64_t expired_count() const noexcept { return expired_; }
  // Bytes of slots, index and expiry table (what keys and values hold on the
  // heap is counted by CountingAllocator's counter).
  [[nodiscard]] std::size_t overhead_bytes() const noexcept;

  // Visits up to about `count` live entries from `cursor`; returns the next cursor,
  // 0 when the iteration is complete. Expired entries are removed, not visited.
  template <class Visit>
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, std::int64_t now, Visit&& visit);
  // A uniformly chosen slot's entry (walking to the next live slot); nullptr if empty.
  [[nodiscard]] Entry* random(std::int64_t now, std::uint64_t random_bits);
  // Examines up to `budget` keys that have an expiry; removes the expired ones.
  std::size_t expire_some(std::int64_t now, std::size_t budget);

 private:
  static constexpr std::size_t chunk_bits = 10;
  static constexpr std::size_t chunk_size = std::size_t{1} << chunk_bits;

  // prefetch's lookup: it accepts the first slot whose tag matches, without
  // reading the entry, and notes it — a guess that is right but for tag
  // collisions, which is all a prefetch needs.
  struct Probe {
    std::size_t hash;
    std::uint32_t* candidate;
  };
  // A key with its hash already computed: upsert's one probe (lazy_emplace)
  // hashes nothing again.
  struct Hashed {
    std::string_view key;
    std::size_t hash;
  };
  // An entry does not cache its hash (8 bytes a key): a rehash reads the key
  // again, as Redis's does, and lookups compare abseil's 7-bit tags first.
  struct SlotHash {
    using is_transparent = void;
    const Keyspace* owner;
    std::size_t operator()(std::uint32_t slot) const noexcept { return detail::key_hash(owner->slot(slot).key.view()); }
    std::size_t operator()(std::string_view key) const noexcept { return detail::key_hash(key); }
    std::size_t operator()(const Probe& probe) const noexcept { return probe.hash; }
    std::size_t operator()(const Hashed& h) const noexcept { return h.hash; }
  };
  struct SlotEq {
    using is_transparent = void;
    const Keyspace* owner;
    bool operator()(std::uint32_t a, std::uint32_t b) const noexcept { return a == b; }
    bool operator()(std::uint32_t a, std::string_view b) const noexcept {
      return detail::key_equal(as_view(owner->slot(a).key), b);
    }
    bool operator()(std::string_view a, std::uint32_t b) const noexcept {
      return detail::key_equal(a, as_view(owner->slot(b).key));
    }
    bool operator()(std::uint32_t a, const Probe& probe) const noexcept {
      *probe.candidate = a;
      return true;
    }
    bool operator()(const Probe& probe, std::uint32_t b) const noexcept { return (*this)(b, probe); }
    bool operator()(std::uint32_t a, const Hashed& h) const noexcept { return (*this)(a, h.key); }
    bool operator()(const Hashed& h, std::uint32_t b) const noexcept { return (*this)(h.key, b); }
  };

  Entry& slot(std::uint32_t i) noexcept { return chunks_[i >> chunk_bits][i & (chunk_size - 1)]; }
  const Entry& slot(std::uint32_t i) const noexcept { return chunks_[i >> chunk_bits][i & (chunk_size - 1)]; }
  std::uint32_t allocate_slot();
  Entry* find(std::string_view key, std::size_t hash, std::int64_t now) {  // hash == detail::key_hash(key)
    Entry* e = lookup(key, hash, now);
    if (e != nullptr) e->lru = Entry::lru_clock(now);
    return e;
  }
  Entry* lookup(std::string_view key, std::size_t hash, std::int64_t now);
  bool expired(const Entry& e, std::int64_t now) const noexcept { return e.has_expiry && now > expire_at(e); }
  void expire_entry(Entry& e);
  void release_storage();  // every slot, index and expiry freed

  std::vector<std::unique_ptr<Entry[]>> chunks_;
  std::uint32_t slots_used_ = 0;            // slots handed out so far (high-water mark)
  std::vector<std::uint32_t> free_slots_;
  struct Expiry {
    std::int64_t at;
    std::uint32_t pos;  // index in volatile_
  };
  absl::flat_hash_map<std::uint32_t, Expiry> expires_;  // slot -> expiry, for entries that have one
  std::vector<std::uint32_t> volatile_;     // slots whose entry has an expiry, for sampling
  std::size_t expire_cursor_ = 0;
  std::uint64_t expired_ = 0;
  ExpireHook expire_hook_ = nullptr;
  void* expire_context_ = nullptr;
  WatchTable* watches_ = nullptr;
  int db_index_ = 0;
  ExpireHook event_hook_ = nullptr;
  void* event_context_ = nullptr;
  absl::flat_hash_set<std::uint32_t, SlotHash, SlotEq> index_;
};

// Inline: GET's whole lookup is this plus abseil's probe, no call in between.
inline Entry* Keyspace::lookup(std::string_view key, std::size_t hash, std::int64_t now) {
  auto it = index_.find(key, hash);
  if (it == index_.end()) return nullptr;
  Entry& e = slot(*it);
  if (expired(e, now)) {
    expire_entry(e);
    return nullptr;
  }
  return &e;
}

template <class Visit>
std::uint64_t Keyspace::scan(std::uint64_t cursor, std::size_t count, std::int64_t now, Visit&& visit) {
  std::size_t seen = 0;
  while (cursor < slots_used_ && seen < count) {
    Entry& e = slot(static_cast<std::uint32_t>(cursor++));
    if (!e.live) continue;
    ++seen;
    if (expired(e, now)) {
      expire_entry(e);
      continue;
    }
    visit(e);
  }
  return cursor >= slots_used_ ? 0 : cursor;
}

}  // namespace duet::kv
