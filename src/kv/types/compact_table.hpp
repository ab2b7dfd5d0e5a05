// duet::kv::CompactTable — an open-addressing table of records (a key and a
// value, each a byte string), the large encoding of a hash (and reusable by a
// set: give every record an empty value).
//
// Contract
// - One counted allocation per record, header and bytes together:
//   [varint key length][varint value length][key][value] — Redis spends three
//   (dictEntry, key sds, value sds). The table itself is an array of 8-byte
//   slots, a record pointer with 16 bits of the key's hash in its top bits
//   (x86-64 and aarch64 user addresses fit in 48 bits), so a probe compares
//   tags before it touches a record. Linear probing, no tombstones: erase
//   shifts the cluster back. Grows past 3/4 full, shrinks below 1/8.
// - The home slot of a key is the top bits of its hash, so slot order is hash
//   order: scan() walks ranges of the hash space, and its cursor is a hash
//   value (the top 32 bits), not a slot number. Every record present for the
//   whole scan is visited exactly once, whatever resizes happen in between.
// - Views returned (Record, find()) stay valid until the next write.
// - Not thread-safe: the shard that owns the key. Memory is counted in the
//   calling thread's counter (HeapString::allocate).
//
//   CompactTable t;
//   t.assign("field", "value");             // true: inserted
//   if (auto r = t.find("field")) use(r->value);
//   std::uint64_t cursor = t.scan(0, 10, [](CompactTable::Record r) { ... });
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace duet::kv {

class CompactTable {
 public:
  struct Record {
    std::string_view key;
    std::string_view value;
  };
  using Visit = absl::FunctionRef<void(Record)>;

  CompactTable() = default;
  CompactTable(const CompactTable&) = delete;
  CompactTable& operator=(const CompactTable&) = delete;
  CompactTable(CompactTable&& other) noexcept;
  CompactTable& operator=(CompactTable&& other) noexcept;
  ~CompactTable();

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::optional<Record> find(std::string_view key) const noexcept;
  // Inserts or replaces key's value; true when the key was new.
  bool assign(std::string_view key, std::string_view value);
  bool erase(std::string_view key);
  void reserve(std::size_t records);
  // Every record, in slot order.
  void for_each(Visit visit) const;
  // Visits the records whose hash lies in the next ~`count` slots' range from
  // `cursor`; returns the next cursor, 0 when the whole hash space is done.
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit visit) const;
  // A record picked from a random slot (walking on to the next full one);
  // the table must not be empty.
  [[nodiscard]] Record random(std::uint64_t random_bits) const noexcept;
  // Heap bytes: the slot array and every record.
  [[nodiscard]] std::size_t memory_usage() const noexcept { return capacity_ * sizeof(std::uint64_t) + record_bytes_; }

 private:
  static constexpr std::size_t min_capacity = 8;
  static constexpr unsigned tag_shift = 48;
  static constexpr std::uint64_t pointer_mask = (std::uint64_t{1} << tag_shift) - 1;

  [[nodiscard]] std::size_t home(std::uint64_t hash) const noexcept { return hash >> (64 - bits_); }
  [[nodiscard]] std::size_t mask() const noexcept { return capacity_ - 1; }
  // The slot holding `key`, or the empty slot where it would go.
  [[nodiscard]] std::size_t probe(std::string_view key, std::uint64_t hash, bool& found) const noexcept;
  void rehash(std::size_t capacity);
  void place(std::uint64_t slot_value, std::uint64_t hash) noexcept;
  void remove_at(std::size_t pos) noexcept;
  void release_all() noexcept;

  std::uint64_t* slots_ = nullptr;
  std::size_t capacity_ = 0;  // 0 or a power of two
  unsigned bits_ = 0;         // log2(capacity_)
  std::size_t size_ = 0;
  std::size_t record_bytes_ = 0;
};

namespace detail {
// Record blocks: shared with the listpack encoding's varints.
[[nodiscard]] std::size_t varint_size(std::size_t n) noexcept;
char* put_varint(char* out, std::size_t n) noexcept;
const char* get_varint(const char* in, std::size_t& n) noexcept;
}  // namespace detail

}  // namespace duet::kv
