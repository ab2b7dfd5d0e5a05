// duet::kv::detail small blocks — the keyspace's allocations of up to 64
// bytes, in 8-byte size classes and without malloc's per-block header.
//
// Contract
// - small_block_allocate(n) for 1 <= n <= small_block_max returns a block of
//   round_up(n, 8) bytes, 8-byte aligned; small_block_release(p, n) takes it
//   back with the same n (any n in the same class will do).
// - Any thread may free a block any thread allocated: a freed block joins the
//   freeing thread's free list of its class. Each thread has its own pool,
//   touched by no other thread, so the fast paths take no lock; a lock is
//   taken only to fetch 64 KiB of blocks, and when a thread starts or ends.
// - Memory is reused, never returned to the OS: a pool's free lists keep
//   what was freed for the next block of that class, and a thread that ends
//   hands its pool to the next thread that starts. So RSS does not drop
//   after a mass delete (used_memory does); jemalloc, Redis's allocator,
//   would give idle pages back over time. TODO: free a chunk whose blocks
//   are all free, once a workload shows the need.
// - Under AddressSanitizer both calls are plain sized operator new/delete, so
//   ASan still sees every overflow, use after free and size mismatch.
//
// Why not malloc: glibc spends 8 bytes of header per block and rounds to 16
// (a 39-byte small hash takes 48 bytes, a 24-byte intset 32); jemalloc has
// no header but rounds to 16 too. Most of a small key's value is one block of
// 24..64 bytes, so 8-byte classes save 8 bytes of ~100 per key.
//
//   void* p = small_block_allocate(24);  ...  small_block_release(p, 24);
#pragma once

#include <cstddef>
#include <new>

namespace duet::kv::detail {

// Sized delete where the compiler has it: clang 14 leaves it off by default
// (-fsized-deallocation), and the fuzz build uses clang.
inline void sized_delete(void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if defined(__cpp_sized_deallocation)
  ::operator delete(p, bytes);
#else
  ::operator delete(p);
#endif
}

inline constexpr std::size_t small_block_max = 64;

[[nodiscard]] void* small_block_allocate(std::size_t bytes);
void small_block_release(void* p, std::size_t bytes) noexcept;

}  // namespace duet::kv::detail
