// duet::kv::detail::CountingAllocator — std::allocator that keeps a byte count.
//
// Contract
// - Every allocation and deallocation through it adjusts one process-wide
//   counter (relaxed atomic: a statistic, not a synchronisation point), read by
//   allocated_bytes(). Store keys and values use it, so INFO memory reports the
//   bytes really held by the keyspace in O(1), like Redis's zmalloc counter.
//
//   KvString value(alloc);  value.assign("hello world, longer than SSO");
//   std::size_t used = CountingAllocator<char>::allocated_bytes();
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

namespace duet::kv::detail {

inline std::atomic<std::size_t> g_counted_bytes{0};

template <class T>
struct CountingAllocator {
  using value_type = T;

  CountingAllocator() noexcept = default;
  template <class U>
  CountingAllocator(const CountingAllocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly

  T* allocate(std::size_t n) {
    g_counted_bytes.fetch_add(n * sizeof(T), std::memory_order_relaxed);
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    g_counted_bytes.fetch_sub(n * sizeof(T), std::memory_order_relaxed);
    std::allocator<T>{}.deallocate(p, n);
  }
  static std::size_t allocated_bytes() noexcept { return g_counted_bytes.load(std::memory_order_relaxed); }

  template <class U>
  bool operator==(const CountingAllocator<U>&) const noexcept { return true; }
};

}  // namespace duet::kv::detail

namespace duet::kv {
// The string type of keys and values: binary safe, counted for INFO memory.
using KvString = std::basic_string<char, std::char_traits<char>, detail::CountingAllocator<char>>;
}  // namespace duet::kv
