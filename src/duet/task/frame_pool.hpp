// duet::FramePool — a bounded cache of freed coroutine frames by size class,
// and the per-thread pool that Task frames come from.
//
// Contract
// - allocate(n) hands out a block of at least n bytes (16-byte aligned): a
//   cached block of n's size class when there is one, else a fresh one from
//   the global operator new. deallocate(block, n) takes it back with the same
//   n; it keeps the block for reuse while the pool holds fewer than limit()
//   bytes, and frees it otherwise. Blocks over largest_pooled bytes are never
//   cached. So memory held idle is bounded by the limit, per pool.
// - A pool belongs to one thread at a time (no locks). Destroying a pool
//   frees what it caches; blocks still out go back to whichever pool (or the
//   global operator delete) they are handed to: every block is a plain
//   operator-new block of its class size.
// - Task frames: Task's promise allocates from this thread's pool
//   (frame_pool_stats / set_frame_pool_limit below), so a server that runs a
//   task per request reuses the same few frames instead of calling the global
//   allocator. A frame freed on another thread goes to that thread's pool. At
//   thread exit the thread's pool frees its cache and passes blocks through.
// - Under AddressSanitizer Task frames bypass the pool (frame_pool_recycles is
//   false): a recycled frame would hide a use-after-free of a dead task.
//
//   duet::set_frame_pool_limit(0);            // this thread: no caching
//   duet::FramePoolStats s = duet::frame_pool_stats();
//   s.reused;                                 // allocations served from cache
#pragma once

#include <array>
#include <cstddef>

namespace duet {

struct FramePoolStats {
  std::size_t allocated = 0;      // blocks taken from the global operator new
  std::size_t reused = 0;         // allocations served from the cache
  std::size_t cached_blocks = 0;  // blocks held now
  std::size_t cached_bytes = 0;   // bytes held now (at most the limit)
};

namespace detail {

// The pool's state with no destructor, so a thread_local of it needs neither
// an initialisation guard nor a destructor registration on the hot path.
struct FreeLists {
  static constexpr std::size_t granule = 16;
  // 2 KiB: a WebSocket's drive frame (1,384 B, one per message) and an HTTP
  // connection's (1,248 B) are frames a server makes again and again.
  static constexpr std::size_t largest_pooled = 2048;
  static constexpr std::size_t class_count = largest_pooled / granule;
  static constexpr std::size_t default_limit = 256 * 1024;

  struct Block {
    Block* next;
  };

  void* allocate(std::size_t size);
  void deallocate(void* block, std::size_t size) noexcept;
  void release() noexcept;
  void set_limit(std::size_t bytes) noexcept;  // lowering it below the cache frees the cache

  std::array<Block*, class_count> heads_{};
  std::size_t limit_ = default_limit;
  FramePoolStats stats_{};
};

}  // namespace detail

class FramePool {
 public:
  static constexpr std::size_t largest_pooled = detail::FreeLists::largest_pooled;
  static constexpr std::size_t default_limit = detail::FreeLists::default_limit;

  FramePool() noexcept = default;
  explicit FramePool(std::size_t limit_bytes) noexcept { lists_.limit_ = limit_bytes; }
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  FramePool(FramePool&&) = delete;
  FramePool& operator=(FramePool&&) = delete;
  ~FramePool() { lists_.release(); }

  [[nodiscard]] void* allocate(std::size_t size) { return lists_.allocate(size); }
  void deallocate(void* block, std::size_t size) noexcept { lists_.deallocate(block, size); }
  // Frees every cached block now.
  void release() noexcept { lists_.release(); }
  // Caps the bytes held idle; lowering it frees the cache first.
  void set_limit(std::size_t bytes) noexcept { lists_.set_limit(bytes); }
  [[nodiscard]] std::size_t limit() const noexcept { return lists_.limit_; }
  [[nodiscard]] FramePoolStats stats() const noexcept { return lists_.stats_; }

 private:
  detail::FreeLists lists_;
};

// True when Task frames come from the per-thread pool (false under ASan).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool frame_pool_recycles = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool frame_pool_recycles = false;
#else
inline constexpr bool frame_pool_recycles = true;
#endif
#else
inline constexpr bool frame_pool_recycles = true;
#endif

// This thread's Task-frame pool: its counters, and its idle-memory cap
// (0 turns caching off for this thread; default FramePool::default_limit).
[[nodiscard]] FramePoolStats frame_pool_stats() noexcept;
void set_frame_pool_limit(std::size_t bytes) noexcept;

namespace detail {
// The default frame allocation of every Task (see task.hpp): this thread's
// pool, or the global operator new/delete when frame_pool_recycles is false.
[[nodiscard]] void* allocate_task_frame(std::size_t size);
void deallocate_task_frame(void* frame, std::size_t size) noexcept;
}  // namespace detail

}  // namespace duet
