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
//   auto set = std::make_unique<SetObject>();
//   set->add("1", 512);  set->encoding() == "intset";
//   set->add("x", 512);  set->encoding() == "hashtable";
//   set->for_each([](std::string_view m) { ... });
#pragma once

#include <charconv>
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

  [[nodiscard]] ValueType type() const noexcept override { return ValueType::set; }
  [[nodiscard]] std::string_view encoding() const noexcept override { return is_intset() ? "intset" : "hashtable"; }
  [[nodiscard]] std::size_t size() const noexcept override { return is_intset() ? ints_.size() : table_.size(); }
  [[nodiscard]] std::size_t memory_usage() const noexcept override;
  [[nodiscard]] std::unique_ptr<Object> clone() const override;
  void write_records(std::string_view key, RecordSink sink) const override;

  [[nodiscard]] bool is_intset() const noexcept { return table_.capacity() == 0; }
  bool add(std::string_view member, std::int64_t max_intset_entries);  // false when already a member
  bool remove(std::string_view member);                                // false when not a member
  [[nodiscard]] bool contains(std::string_view member) const noexcept;
  // A member picked from `random_bits` (the set must not be empty).
  [[nodiscard]] std::string_view random_member(std::uint64_t random_bits, Scratch& scratch) const noexcept;

  // Every member: an intset's in ascending order, a hashtable's in table order.
  template <class Visit>
  void for_each(Visit&& visit) const {
    if (!is_intset()) return table_.for_each(visit);
    Scratch scratch;
    for (std::size_t i = 0; i < ints_.size(); ++i) visit(format(ints_.at(i), scratch));
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
    do cursor = table_.scan(cursor, counted);
    while (cursor != 0 && buckets-- != 0 && seen < count);
    return cursor;
  }

  [[nodiscard]] static std::string_view format(std::int64_t value, Scratch& scratch) noexcept {
    auto end = std::to_chars(scratch.bytes, scratch.bytes + sizeof(scratch.bytes), value).ptr;
    return {scratch.bytes, static_cast<std::size_t>(end - scratch.bytes)};
  }

 private:
  void convert_to_table();

  IntSet ints_;     // the intset encoding's members
  SetTable table_;  // the hashtable encoding's (capacity 0 while an intset)
};

}  // namespace duet::kv
