// duet::kv::detail::CountingAllocator — std::allocator that keeps a byte count.
//
// Contract
// - Every allocation and deallocation through it adjusts the calling thread's
//   counter, read by allocated_bytes() on that thread. Store keys and values
//   use it, so INFO memory reports the bytes really held by the keyspace in
//   O(1), like Redis's zmalloc counter. Per thread, not per process: with the
//   keyspace split over shards (--threads N) each shard's thread allocates and
//   frees only its own keys and values, so its counter is its shard's memory,
//   and no shard writes a cache line another shard writes (a process-wide
//   atomic costed every SET a contended read-modify-write). Signed, because a
//   thread may free what another allocated (a store torn down at exit);
//   allocated_bytes() reads a negative count as 0.
//
//   KvString value(alloc);  value.assign("hello world, longer than SSO");
//   std::size_t used = CountingAllocator<char>::allocated_bytes();
#pragma once

#include <cstdint>
#include <cstddef>
#include <memory>
#include <string>

namespace duet::kv::detail {

inline thread_local std::int64_t t_counted_bytes = 0;

template <class T>
struct CountingAllocator {
  using value_type = T;

  CountingAllocator() noexcept = default;
  template <class U>
  CountingAllocator(const CountingAllocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly

  T* allocate(std::size_t n) {
    t_counted_bytes += static_cast<std::int64_t>(n * sizeof(T));
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    t_counted_bytes -= static_cast<std::int64_t>(n * sizeof(T));
    std::allocator<T>{}.deallocate(p, n);
  }
  static std::size_t allocated_bytes() noexcept {
    return t_counted_bytes > 0 ? static_cast<std::size_t>(t_counted_bytes) : 0;
  }

  template <class U>
  bool operator==(const CountingAllocator<U>&) const noexcept { return true; }
};

}  // namespace duet::kv::detail

namespace duet::kv {
// The string type of keys and values: binary safe, counted for INFO memory.
using KvString = std::basic_string<char, std::char_traits<char>, detail::CountingAllocator<char>>;
}  // namespace duet::kv
