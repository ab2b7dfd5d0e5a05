// duet::kv::HashObject — the hash type: field → value, in Redis's two
// encodings.
//
// Contract
// - "listpack" while the hash has at most `max_entries` fields and every field
//   and value written has at most `max_value` bytes (Redis's
//   hash-max-listpack-entries / -value, read from the config at each write);
//   "hashtable" beyond. Conversion is one way, as in Redis.
// - listpack (ListpackHash): ONE allocation, the object's 1-byte header
//   (object.hpp) then [varint payload length][varint len, field, varint len,
//   value]... in insertion order (HGETALL of a small hash is Redis's order):
//   5 small fields are 32 bytes. A write builds the object anew (Redis's
//   listpack reallocs on every insert too), so writes go through
//   hash_set/hash_erase on the Value, which may replace the object.
// - hashtable (TableHash): a CompactTable (compact_table.hpp), one allocation
//   per field/value pair, order free, HSCAN by hash ranges.
// - No virtual functions: each member below is a two-way switch over the
//   header's encoding tag, to the encoding's class in hash.cpp.
// - Reads (find, for_each, scan, random) return views valid until the next
//   write. One thread: the shard's that owns the key.
//
//   HashLimits limits = HashLimits::from(ctx.server.config());
//   Value v;  v.set_object(HashObject::create());
//   hash_set(v, "f", "v", limits);                 // true: a new field
//   if (auto val = v.as<HashObject>()->find("f")) reply.bulk(*val);
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "kv/types/compact_table.hpp"
#include "kv/value/object.hpp"
#include "kv/value/value.hpp"

namespace duet::kv {

struct ServerConfig;

struct HashLimits {
  std::size_t max_entries = 512;
  std::size_t max_value = 64;
  [[nodiscard]] static HashLimits from(const ServerConfig& config) noexcept;
};

class HashObject : public Object {
 public:
  static constexpr ValueType value_type = ValueType::hash;
  using Visit = CompactTable::Visit;
  using Record = CompactTable::Record;

  // An empty listpack hash (the caller adds a field before a key holds it).
  [[nodiscard]] static ObjectPtrOf<HashObject> create();
  // Frees either encoding with its own size (ObjectDeleter's case for hashes).
  static void destroy(HashObject* hash) noexcept;

  [[nodiscard]] bool is_listpack() const noexcept { return encoding_tag() == listpack_tag; }
  [[nodiscard]] std::string_view encoding() const noexcept { return is_listpack() ? "listpack" : "hashtable"; }
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] std::size_t memory_usage() const noexcept;
  [[nodiscard]] ObjectPtr clone() const;
  void write_records(std::string_view key, RecordSink sink) const;

  [[nodiscard]] std::optional<std::string_view> find(std::string_view field) const noexcept;
  void for_each(Visit visit) const;
  // HSCAN: the next cursor (0 at the end); a listpack visits all and returns 0.
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit visit) const;
  // One pair picked at random (the hash is not empty).
  [[nodiscard]] Record random(std::uint64_t random_bits) const noexcept;

 protected:
  static constexpr unsigned listpack_tag = 0;
  static constexpr unsigned table_tag = 1;

  explicit HashObject(unsigned encoding_tag) noexcept : Object(value_type, encoding_tag) {}
  ~HashObject() = default;
};

// Sets each (field, value) of `pairs` (field, value, field, value...) in the
// hash held by `v`, converting to a hashtable as Redis's HSET does (a field or
// value longer than max_value, or more than max_entries fields); returns how
// many fields are new. A listpack is rebuilt once per call, not per pair.
std::size_t hash_set(Value& v, std::span<const std::string_view> pairs, const HashLimits& limits);
bool hash_set(Value& v, std::string_view field, std::string_view value, const HashLimits& limits);
// Removes the fields; returns how many were there. The caller deletes an
// emptied key.
std::size_t hash_erase(Value& v, std::span<const std::string_view> fields);
bool hash_erase(Value& v, std::string_view field);

}  // namespace duet::kv
