// duet::kv::SetTable — a set of binary-safe strings: the "hashtable" encoding
// of a set.
//
// Contract
// - Open addressing with linear probing over one counted allocation: a
//   16-byte CompactString per slot (members up to 15 bytes live in the slot,
//   no allocation) and a control byte per slot (0 = empty, else 0x80 and 7
//   bits of the hash, so most mismatches never read the member). At most 3/4
//   full, so a member costs ~17/load bytes: 23..45, against Redis's dictEntry,
//   bucket and sds (~56). Erase shifts the run back (no tombstones); the table
//   halves when it falls under 1/8 full.
// - scan() is Redis's dictScan: a cursor names a home bucket in reversed-bit
//   order, and a member present for a whole iteration is returned at least
//   once even if the table grows or shrinks meanwhile (the run after a home
//   bucket holds every member whose probe starts there, wherever it landed).
// - random_member() tries random slots until one is full: uniform over the
//   members, a few tries (the table is at least 1/8 full, but an empty one).
// - Move-only; one thread (counting_allocator.hpp).
//
//   SetTable t;
//   t.insert("a");  t.contains("a") == true;
//   std::uint64_t cursor = 0;
//   do cursor = t.scan(cursor, [](std::string_view m) { ... }); while (cursor != 0);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kv/value/compact_string.hpp"

namespace duet::kv {
namespace detail {

// Calls visit(member): true to go on (always, for a visitor returning void).
template <class Visit>
bool visit_more(Visit& visit, std::string_view member) {
  if constexpr (std::is_same_v<decltype(visit(member)), bool>) {
    return visit(member);
  } else {
    visit(member);
    return true;
  }
}

}  // namespace detail

class SetTable {
 public:
  SetTable() noexcept = default;
  SetTable(const SetTable&) = delete;
  SetTable& operator=(const SetTable&) = delete;
  SetTable(SetTable&& other) noexcept
      : slots_(std::exchange(other.slots_, nullptr)),
        capacity_(std::exchange(other.capacity_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  SetTable& operator=(SetTable&& other) noexcept {
    std::swap(slots_, other.slots_);
    std::swap(capacity_, other.capacity_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~SetTable() { clear(); }

  bool insert(std::string_view member);  // false when already present
  bool erase(std::string_view member);   // false when absent
  [[nodiscard]] bool contains(std::string_view member) const noexcept { return find(member) != npos; }
  // Makes room for `n` members without growing again.
  void reserve(std::size_t n);
  void clear() noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  // Heap bytes: the slot array and the members kept outside it.
  [[nodiscard]] std::size_t allocated() const noexcept;
  [[nodiscard]] SetTable clone() const;

  // Every member; a visitor that returns bool stops the walk with false.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::size_t i = 0; i < capacity_; ++i) {
      if (ctrl()[i] != 0 && !detail::visit_more(visit, slots_[i].view())) return;
    }
  }
  // One home bucket's members, then the next cursor (0: the iteration is done).
  template <class Visit>
  std::uint64_t scan(std::uint64_t cursor, Visit&& visit) const;
  // A member picked from `random_bits`; the table must not be empty.
  [[nodiscard]] std::string_view random_member(std::uint64_t random_bits) const noexcept;

 private:
  static constexpr std::size_t npos = ~std::size_t{0};
  static constexpr std::size_t min_capacity = 8;

  [[nodiscard]] static std::uint64_t reverse_bits(std::uint64_t v) noexcept;
  [[nodiscard]] std::uint8_t* ctrl() const noexcept { return reinterpret_cast<std::uint8_t*>(slots_ + capacity_); }
  [[nodiscard]] std::size_t mask() const noexcept { return capacity_ - 1; }
  [[nodiscard]] static std::uint8_t tag_of(std::size_t hash) noexcept { return static_cast<std::uint8_t>(0x80 | (hash >> 57)); }
  [[nodiscard]] std::size_t home_of(std::size_t slot) const noexcept;
  [[nodiscard]] std::size_t find(std::string_view member) const noexcept;
  void rehash(std::size_t capacity);
  void place(CompactString&& member, std::size_t hash) noexcept;  // room and absence known

  CompactString* slots_ = nullptr;  // capacity_ slots, then capacity_ control bytes
  std::uint32_t capacity_ = 0;      // a power of two, or 0
  std::uint32_t size_ = 0;
};

template <class Visit>
std::uint64_t SetTable::scan(std::uint64_t cursor, Visit&& visit) const {
  if (capacity_ == 0) return 0;
  const std::uint64_t m = mask();
  const std::size_t bucket = cursor & m;
  for (std::size_t i = bucket; ctrl()[i] != 0; i = (i + 1) & m) {
    if (home_of(i) == bucket) visit(slots_[i].view());
  }
  // Redis's reverse binary increment: the high bits count first, so the
  // buckets a grown or shrunk table maps one bucket to are visited together.
  cursor |= ~m;
  cursor = reverse_bits(cursor);
  ++cursor;
  return reverse_bits(cursor);
}

}  // namespace duet::kv
