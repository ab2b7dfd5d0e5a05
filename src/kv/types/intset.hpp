// duet::kv::IntSet — a sorted set of 64-bit integers in 16 bytes or one
// allocation: the "intset" encoding of a set (Redis's intset.c).
//
// Contract
// - Up to 7 values that fit 2 bytes live inside the object (no allocation:
//   SADD k 1 2 3 4 5 costs nothing beyond the set object). Beyond, one
//   counted block: an 8-byte header (count, width) and the values in
//   ascending order, each in the narrowest width (2, 4 or 8 bytes) that fits
//   every value; inserting a value that needs more widens all of them
//   (Redis's upgrade). A block is resized to fit on every insert and erase
//   (Redis reallocs the same way).
// - Byte 15 of the object is 0 (inline) or 1 (a block): an owner may keep
//   other states in the same 16 bytes with other values there (SetObject).
// - Lookups are binary searches; insert/erase move the tail (O(n), n is at
//   most set-max-intset-entries before the set converts).
// - Move-only; the thread that made a block frees it (counting_allocator.hpp).
//
//   IntSet s;
//   s.insert(42);  s.insert(-7);
//   s.at(0) == -7;  s.contains(42) == true;
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace duet::kv {

class IntSet {
 public:
  static constexpr std::size_t tag_byte = 15;
  static constexpr std::size_t inline_max = 7;  // int16 values inside the object

  IntSet() noexcept { std::memset(bytes_, 0, sizeof(bytes_)); }
  IntSet(const IntSet&) = delete;
  IntSet& operator=(const IntSet&) = delete;
  IntSet(IntSet&& other) noexcept {
    std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
    std::memset(other.bytes_, 0, sizeof(bytes_));
  }
  IntSet& operator=(IntSet&& other) noexcept {
    if (this != &other) {
      clear();
      std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
      std::memset(other.bytes_, 0, sizeof(bytes_));
    }
    return *this;
  }
  ~IntSet() { clear(); }

  bool insert(std::int64_t value);  // false when already present
  bool erase(std::int64_t value);   // false when absent
  [[nodiscard]] bool contains(std::int64_t value) const noexcept;
  [[nodiscard]] std::int64_t at(std::size_t i) const noexcept { return get(data(), width(), i); }  // ascending
  [[nodiscard]] std::size_t size() const noexcept { return is_heap() ? block()->count : bytes_[count_byte]; }
  [[nodiscard]] unsigned width() const noexcept { return is_heap() ? block()->width : 2; }
  // Heap bytes (0 while inline).
  [[nodiscard]] std::size_t allocated() const noexcept { return is_heap() ? bytes_for(size(), width()) : 0; }
  [[nodiscard]] IntSet clone() const;
  void clear() noexcept;

 private:
  static constexpr std::size_t count_byte = 14;
  struct Header {
    std::uint32_t count;
    std::uint32_t width;  // bytes per value: 2, 4 or 8
  };

  [[nodiscard]] bool is_heap() const noexcept { return bytes_[tag_byte] != 0; }
  [[nodiscard]] Header* block() const noexcept {
    Header* h = nullptr;
    std::memcpy(&h, bytes_, sizeof(h));
    return h;
  }
  [[nodiscard]] const char* data() const noexcept {
    return is_heap() ? reinterpret_cast<const char*>(block() + 1) : reinterpret_cast<const char*>(bytes_);
  }
  static std::size_t bytes_for(std::size_t count, unsigned width) noexcept { return sizeof(Header) + count * width; }
  static unsigned width_for(std::int64_t value) noexcept;
  static std::int64_t get(const char* data, unsigned width, std::size_t i) noexcept;
  static void put(char* data, unsigned width, std::size_t i, std::int64_t value) noexcept;
  // Binary search: true and the position when found, else where it would go.
  bool search(std::int64_t value, std::size_t& pos) const noexcept;
  // Replaces the storage by `count` values of `width` bytes: the current
  // ones with the value at `skip` left out (skip == npos: none) and a gap at
  // `gap` (npos: none), converted to the width; inline when they fit.
  char* reshape(std::size_t count, unsigned width, std::size_t skip, std::size_t gap);

  alignas(8) unsigned char bytes_[16];
};
static_assert(sizeof(IntSet) == 16);

}  // namespace duet::kv
