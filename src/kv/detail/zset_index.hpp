// duet::kv::detail::ZsetEntry and ZsetIndex — a large sorted set's members
// (kv/types/zset_tree.hpp): each member's bytes in one allocation, and the
// table that finds an entry by member.
//
// Contract
// - ZsetEntry: [score: 8][length: 1, or 0xff and 4 more][bytes], made and
//   freed by ZsetTree; member() views the bytes.
// - ZsetIndex holds pointers to entries it does not own: insert(e) of an
//   absent member, erase(e) of a present one, find(member) in O(1) expected.
//   Entries must live at addresses below 2^48 (user space on x86-64 and
//   aarch64): the top 16 bits of a slot carry a hash tag.
// - Its memory comes from CountingAllocator (INFO memory counts it);
//   capacity() sizes it for MEMORY USAGE.
// - One thread (the store's).
//
//   detail::ZsetIndex index;
//   index.insert(entry);
//   if (detail::ZsetEntry* e = index.find("alice")) use(e->score);
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "kv/detail/key_hash.hpp"

namespace duet::kv::detail {

// One member: [score: 8][length: 1, or 0xff and 4 more][bytes]. A one-byte
// length for members under 255 bytes keeps a 15-byte member in glibc's
// smallest chunk (24 usable bytes) where a 4-byte length would not.
struct ZsetEntry {
  double score;
  unsigned char short_length;  // 0xff: the length is the 4 bytes after it

  [[nodiscard]] std::size_t header_bytes() const noexcept { return short_length == 0xff ? 13 : 9; }
  [[nodiscard]] std::size_t length() const noexcept {
    if (short_length != 0xff) return short_length;
    std::uint32_t n = 0;
    std::memcpy(&n, reinterpret_cast<const char*>(this) + 9, sizeof n);
    return n;
  }
  [[nodiscard]] std::string_view member() const noexcept {
    return {reinterpret_cast<const char*>(this) + header_bytes(), length()};
  }
};

// The index by member: open addressing with linear probing over one array of
// 8-byte slots, each an entry's pointer with 16 bits of its member's hash in
// the top bits (user-space pointers fit in 48 bits on x86-64 and aarch64), so
// a probe reads an entry only when the tags match. Any capacity (the home
// slot is a multiply-shift of the hash, not a mask), filled to at most 4/5
// and grown by half: 8/0.53..8/0.8 = 10..15 bytes a member, where abseil's
// power-of-two table at 7/8 held 1M members in 2^21 slots of 9 bytes (19 B).
// Erase shifts the run back (no tombstones); under 1/8 full it shrinks.
class ZsetIndex {
 public:
  ZsetIndex() noexcept = default;
  ZsetIndex(const ZsetIndex&) = delete;
  ZsetIndex& operator=(const ZsetIndex&) = delete;
  ~ZsetIndex() { clear(); }

  [[nodiscard]] ZsetEntry* find(std::string_view member) const noexcept;
  void insert(ZsetEntry* e);            // e's member is absent
  void erase(const ZsetEntry* e) noexcept;  // e is present
  void clear() noexcept;
  // ZSCAN's step: visits every entry whose member's hash has its top 32 bits
  // in [cursor, next), a stretch of about `count` slots; returns next (0 at
  // the end). A cursor is a hash value, not a slot, so an entry present for
  // the whole scan is visited exactly once whatever resizes happen between.
  std::uint64_t scan(std::uint64_t cursor, std::size_t count,
                     absl::FunctionRef<void(const ZsetEntry*)> visit) const;
  void swap(ZsetIndex& other) noexcept {
    std::swap(slots_, other.slots_);
    std::swap(capacity_, other.capacity_);
    std::swap(size_, other.size_);
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  [[nodiscard]] std::size_t home(std::size_t hash) const noexcept {
    return static_cast<std::size_t>((static_cast<KeyHashWide>(hash) * capacity_) >> 64);
  }
  [[nodiscard]] std::size_t next(std::size_t i) const noexcept { return i + 1 == capacity_ ? 0 : i + 1; }
  void place(std::uint64_t slot, std::size_t hash) noexcept;
  void resize(std::size_t capacity);

  std::uint64_t* slots_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

}  // namespace duet::kv::detail
