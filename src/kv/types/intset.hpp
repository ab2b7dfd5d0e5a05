// duet::kv::IntSet — a sorted set of 64-bit integers in one allocation: the
// "intset" encoding of a set (Redis's intset.c).
//
// Contract
// - One counted block: an 8-byte header (count, width) and the values in
//   ascending order, each stored in the narrowest width (2, 4 or 8 bytes)
//   that fits every value; inserting a value that needs more widens all of
//   them (Redis's upgrade), and a set never narrows again (as Redis).
// - The block is resized to fit on every insert and erase (Redis reallocs the
//   same way): a small set costs its header plus 2 bytes an element.
// - Lookups are binary searches; insert/erase move the tail (O(n), n is at
//   most set-max-intset-entries before the set converts).
// - Move-only; the thread that made the block frees it (counting_allocator.hpp).
//
//   IntSet s;
//   s.insert(42);  s.insert(-7);
//   s.at(0) == -7;  s.contains(42) == true;
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace duet::kv {

class IntSet {
 public:
  IntSet() noexcept = default;
  IntSet(const IntSet&) = delete;
  IntSet& operator=(const IntSet&) = delete;
  IntSet(IntSet&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  IntSet& operator=(IntSet&& other) noexcept {
    std::swap(block_, other.block_);
    return *this;
  }
  ~IntSet() { clear(); }

  bool insert(std::int64_t value);  // false when already present
  bool erase(std::int64_t value);   // false when absent
  [[nodiscard]] bool contains(std::int64_t value) const noexcept;
  [[nodiscard]] std::int64_t at(std::size_t i) const noexcept;  // i < size(), ascending
  [[nodiscard]] std::size_t size() const noexcept { return block_ == nullptr ? 0 : block_->count; }
  [[nodiscard]] std::size_t allocated() const noexcept { return block_ == nullptr ? 0 : bytes_for(block_->count, block_->width); }
  [[nodiscard]] unsigned width() const noexcept { return block_ == nullptr ? 2 : block_->width; }
  [[nodiscard]] IntSet clone() const;
  void clear() noexcept;

 private:
  struct Header {
    std::uint32_t count;
    std::uint32_t width;  // bytes per value: 2, 4 or 8
  };

  static std::size_t bytes_for(std::size_t count, unsigned width) noexcept { return sizeof(Header) + count * width; }
  static unsigned width_for(std::int64_t value) noexcept;
  [[nodiscard]] char* values() const noexcept { return reinterpret_cast<char*>(block_ + 1); }
  static Header* make(std::size_t count, unsigned width);
  static void destroy(Header* block) noexcept;
  static std::int64_t get(const Header* block, std::size_t i) noexcept;
  static void put(Header* block, std::size_t i, std::int64_t value) noexcept;
  // Binary search: true and the position when found, else where it would go.
  bool search(std::int64_t value, std::size_t& pos) const noexcept;

  Header* block_ = nullptr;
};

}  // namespace duet::kv
