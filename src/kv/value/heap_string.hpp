// duet::kv::HeapString — a counted heap block of bytes: size, capacity, data.
//
// Contract
// - One allocation, header and bytes together (Redis's sds in spirit): 8 bytes
//   of header, then `capacity` bytes. Created and freed only through create()
//   and destroy(), which count the bytes in CountingAllocator's per-thread
//   counter (INFO used_memory). Plain data: the owner decides when to free it.
// - A block is freed on the thread that allocated it, or the per-thread
//   counters drift (see counting_allocator.hpp; the shards never hand a block
//   to another shard — values cross as records, not pointers).
//
//   HeapString* s = HeapString::create("hello", 5);
//   s = HeapString::resize(s, 8);     // may move; grows the capacity by half
//   HeapString::destroy(s);
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>

#include "kv/detail/counting_allocator.hpp"
#include "kv/detail/small_blocks.hpp"

namespace duet::kv {

struct HeapString {
  std::uint32_t size;
  std::uint32_t capacity;

  [[nodiscard]] char* data() noexcept { return reinterpret_cast<char*>(this + 1); }
  [[nodiscard]] const char* data() const noexcept { return reinterpret_cast<const char*>(this + 1); }
  [[nodiscard]] std::string_view view() const noexcept { return {data(), size}; }
  // Bytes this block holds on the heap, header included.
  [[nodiscard]] std::size_t allocated() const noexcept { return sizeof(HeapString) + capacity; }

  static HeapString* create(const char* bytes, std::size_t n, std::size_t capacity = 0) {
    if (capacity < n) capacity = n;
    auto* block = static_cast<HeapString*>(allocate(sizeof(HeapString) + capacity));
    block->size = static_cast<std::uint32_t>(n);
    block->capacity = static_cast<std::uint32_t>(capacity);
    if (n != 0) std::memcpy(block->data(), bytes, n);
    return block;
  }
  // The block with `n` bytes: the first min(size, n) kept, any new ones zero.
  // Grows to 1.5x what is asked when it must move (APPEND in a loop is linear).
  static HeapString* resize(HeapString* s, std::size_t n) {
    if (n <= s->capacity) {
      if (n > s->size) std::memset(s->data() + s->size, 0, n - s->size);
      s->size = static_cast<std::uint32_t>(n);
      return s;
    }
    std::size_t capacity = n + n / 2;
    if (capacity > max_capacity) capacity = n;
    HeapString* bigger = create(s->data(), s->size, capacity);
    std::memset(bigger->data() + s->size, 0, n - s->size);
    bigger->size = static_cast<std::uint32_t>(n);
    destroy(s);
    return bigger;
  }
  static void destroy(HeapString* s) noexcept {
    if (s == nullptr) return;
    release(s, s->allocated());
  }

  static constexpr std::size_t max_capacity = 0xFFFFFFFFu;

  // Every block of the keyspace comes from here: up to 64 bytes from the
  // small-block pools (no malloc header, 8-byte classes), larger ones from
  // malloc. `bytes` must be what allocate() was given (or the same class).
  static void* allocate(std::size_t bytes) {
    detail::t_counted_bytes += static_cast<std::int64_t>(bytes);
    if (bytes <= detail::small_block_max) return detail::small_block_allocate(bytes);
    return ::operator new(bytes);
  }
  static void release(void* p, std::size_t bytes) noexcept {
    detail::t_counted_bytes -= static_cast<std::int64_t>(bytes);
    if (bytes <= detail::small_block_max) return detail::small_block_release(p, bytes);
    detail::sized_delete(p, bytes);
  }
};

}  // namespace duet::kv
