// duet::kv::CompactString — an immutable binary-safe string in 16 bytes.
//
// Contract
// - Up to 15 bytes live inside the object (no allocation: a typical key, a
//   small hash field); longer ones in one counted HeapString. Byte 15 is the
//   inline length (0..15) or `heap_tag`; Value (value.hpp) uses the same
//   byte for its kinds, so the two share the layout rule.
// - Move-only; assign() replaces the bytes. The thread that created a heap
//   string frees it (counting_allocator.hpp).
//
//   CompactString k("user:1000");     // inline
//   std::string_view v = k.view();
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "kv/value/heap_string.hpp"

namespace duet::kv {

class CompactString {
 public:
  static constexpr std::size_t inline_capacity = 15;

  CompactString() noexcept { bytes_[tag_byte] = 0; }
  explicit CompactString(std::string_view s) { init(s); }
  CompactString(const CompactString&) = delete;
  CompactString& operator=(const CompactString&) = delete;
  CompactString(CompactString&& other) noexcept {
    std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
    other.bytes_[tag_byte] = 0;
  }
  CompactString& operator=(CompactString&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
      other.bytes_[tag_byte] = 0;
    }
    return *this;
  }
  ~CompactString() { release(); }

  void assign(std::string_view s) {
    release();
    init(s);
  }
  void clear() noexcept {
    release();
    bytes_[tag_byte] = 0;
  }

  [[nodiscard]] std::string_view view() const noexcept {
    if (is_heap()) return heap()->view();
    return {bytes_, static_cast<std::size_t>(bytes_[tag_byte])};
  }
  [[nodiscard]] std::size_t size() const noexcept { return view().size(); }
  [[nodiscard]] const char* data() const noexcept { return view().data(); }
  [[nodiscard]] bool is_heap() const noexcept { return static_cast<unsigned char>(bytes_[tag_byte]) == heap_tag; }
  // Heap bytes it holds (0 when inline): MEMORY USAGE.
  [[nodiscard]] std::size_t allocated() const noexcept { return is_heap() ? heap()->allocated() : 0; }

 private:
  static constexpr std::size_t tag_byte = 15;
  static constexpr unsigned char heap_tag = 0x80;

  void init(std::string_view s) {
    if (s.size() <= inline_capacity) {
      if (!s.empty()) std::memcpy(bytes_, s.data(), s.size());
      bytes_[tag_byte] = static_cast<char>(s.size());
      return;
    }
    HeapString* h = HeapString::create(s.data(), s.size());
    std::memcpy(bytes_, &h, sizeof(h));
    bytes_[tag_byte] = static_cast<char>(heap_tag);
  }
  [[nodiscard]] HeapString* heap() const noexcept {
    HeapString* h = nullptr;
    std::memcpy(&h, bytes_, sizeof(h));
    return h;
  }
  void release() noexcept {
    if (is_heap()) HeapString::destroy(heap());
  }

  alignas(8) char bytes_[16];
};
static_assert(sizeof(CompactString) == 16);

inline std::string_view as_view(const CompactString& s) noexcept { return s.view(); }

}  // namespace duet::kv
