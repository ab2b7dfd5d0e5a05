// duet::kv::SetObject — a key's set: Redis 7.0's two encodings.
//
// Contract
// - "intset" (kv/types/intset.hpp) while every member is an integer in
//   canonical form (Redis's string2ll) and there are at most
//   set-max-intset-entries of them; "hashtable" (kv/types/set_table.hpp)
//   from the first other member or the first one past the limit. Redis 7.0
//   has no listpack sets, and a set never converts back (but a new set made
//   from an old one's members, as SPOP's and SINTERSTORE's, starts over).
// - add() takes the threshold in force at the time of the write (CONFIG SET
//   changes only later writes, as in Redis).
// - Members are visited as string_views valid during the visit only: an
//   intset's are formatted into a buffer of the visitor's call.
// - One thread, the shard's that owns the key (object.hpp).
//
//   auto set = make_object<SetObject>();
//   set->add("1", 512);  set->encoding() == "intset";
//   set->add("x", 512);  set->encoding() == "hashtable";
//   set->for_each([](std::string_view m) { ... });
#pragma once

#include <charconv>
#include <cstring>
#include <new>
#include <cstdint>
#include <memory>
#include <string_view>

#include "kv/types/intset.hpp"
#include "kv/types/set_table.hpp"
#include "kv/value/object.hpp"

namespace duet::kv {

class SetObject final : public Object {
 public:
  static constexpr ValueType value_type = ValueType::set;
  // Room for any int64 in decimal.
  struct Scratch {
    char bytes[24];
  };

  SetObject() noexcept : Object(value_type) { new (storage_) IntSet(); }
  ~SetObject();

  [[nodiscard]] std::string_view encoding() const noexcept { return is_intset() ? "intset" : "hashtable"; }
  [[nodiscard]] std::size_t size() const noexcept { return is_intset() ? ints().size() : table().size(); }
  [[nodiscard]] std::size_t memory_usage() const noexcept;
  [[nodiscard]] ObjectPtr clone() const;
  void write_records(std::string_view key, RecordSink sink) const;

  [[nodiscard]] bool is_intset() const noexcept { return storage_[IntSet::tag_byte] != table_tag; }
  bool add(std::string_view member, std::int64_t max_intset_entries);  // false when already a member
  bool remove(std::string_view member);                                // false when not a member
  [[nodiscard]] bool contains(std::string_view member) const noexcept;
  // A member picked from `random_bits` (the set must not be empty).
  [[nodiscard]] std::string_view random_member(std::uint64_t random_bits, Scratch& scratch) const noexcept;

  // Every member: an intset's in ascending order, a hashtable's in table
  // order; a visitor that returns bool stops the walk with false.
  template <class Visit>
  void for_each(Visit&& visit) const {
    if (!is_intset()) return table().for_each(visit);
    Scratch scratch;
    const IntSet& ints = this->ints();
    for (std::size_t i = 0; i < ints.size(); ++i) {
      if (!detail::visit_more(visit, format(ints.at(i), scratch))) return;
    }
  }
  // SSCAN's step: an intset answers whole with cursor 0 (as Redis); a
  // hashtable visits home buckets until `count` members or 10x count buckets.
  template <class Visit>
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit&& visit) const {
    if (is_intset()) {
      for_each(visit);
      return 0;
    }
    std::size_t seen = 0;
    std::size_t buckets = count * 10;
    auto counted = [&](std::string_view m) {
      ++seen;
      visit(m);
    };
    do cursor = table().scan(cursor, counted);
    while (cursor != 0 && buckets-- != 0 && seen < count);
    return cursor;
  }

  [[nodiscard]] static std::string_view format(std::int64_t value, Scratch& scratch) noexcept {
    auto end = std::to_chars(scratch.bytes, scratch.bytes + sizeof(scratch.bytes), value).ptr;
    return {scratch.bytes, static_cast<std::size_t>(end - scratch.bytes)};
  }

 private:
  // Byte 15 of storage_ says which: an IntSet keeps 0 or 1 there.
  static constexpr unsigned char table_tag = 2;

  void convert_to_table();
  void make_table(SetTable&& table);  // the IntSet in place goes
  [[nodiscard]] IntSet& ints() noexcept { return *std::launder(reinterpret_cast<IntSet*>(storage_)); }
  [[nodiscard]] const IntSet& ints() const noexcept { return *std::launder(reinterpret_cast<const IntSet*>(storage_)); }
  [[nodiscard]] SetTable& table() const noexcept {
    SetTable* t = nullptr;
    std::memcpy(&t, storage_, sizeof(t));
    return *t;
  }

  // The intset encoding's IntSet in place (small ones hold their members
  // right here), or a pointer to the hashtable encoding's SetTable, after the
  // 1-byte header (object.hpp) and 7 bytes of padding: the object is 24
  // bytes, one small block, so a key of five small integers costs its entry
  // and 24 bytes (Redis: robj, intset, dictEntry). The padding is the price
  // of the pointer's alignment; the encoding stays in storage_[15].
  alignas(8) unsigned char storage_[16];
};
static_assert(sizeof(SetObject) == 24, "header, padding, 16 bytes of storage");

}  // namespace duet::kv
