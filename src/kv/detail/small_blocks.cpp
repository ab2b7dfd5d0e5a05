// Per-thread pools of 8-byte size classes (see small_blocks.hpp).
#include "kv/detail/small_blocks.hpp"

#include <mutex>
#include <new>

namespace duet::kv::detail {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool pooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool pooled = false;
#else
constexpr bool pooled = true;
#endif
#else
constexpr bool pooled = true;
#endif

constexpr std::size_t granule = 8;
constexpr std::size_t class_count = small_block_max / granule;
// Blocks are cut from chunks of this size as they are first needed.
constexpr std::size_t chunk_bytes = 64 * 1024;

struct FreeBlock {
  FreeBlock* next;
};

struct Pool {
  FreeBlock* free[class_count] = {};
  char* bump = nullptr;  // the rest of the current chunk
  char* bump_end = nullptr;
  Pool* next_idle = nullptr;

  void* allocate(std::size_t cls) {
    if (FreeBlock* b = free[cls]) {
      free[cls] = b->next;
      return b;
    }
    const std::size_t bytes = (cls + 1) * granule;
    if (static_cast<std::size_t>(bump_end - bump) < bytes) {
      // The old chunk's tail (under 64 bytes) is left unused.
      bump = static_cast<char*>(::operator new(chunk_bytes));
      bump_end = bump + chunk_bytes;
    }
    void* out = bump;
    bump += bytes;
    return out;
  }
  void release(void* p, std::size_t cls) noexcept {
    auto* b = static_cast<FreeBlock*>(p);
    b->next = free[cls];
    free[cls] = b;
  }
};

// What threads share: pools of ended threads, waiting for new ones, and one
// pool (under the lock) for blocks freed while a thread is ending, after its
// own pool went back. Never destroyed: blocks may be freed by static
// destructors that run after any destructor of ours would.
struct Shared {
  std::mutex mutex;
  Pool* idle = nullptr;
  Pool late;
};
Shared& shared() {
  static auto* s = new Shared;
  return *s;
}

thread_local Pool* t_pool = nullptr;
thread_local bool t_ended = false;

struct PoolReturn {
  ~PoolReturn() {
    Shared& s = shared();
    std::lock_guard lock(s.mutex);
    t_pool->next_idle = s.idle;
    s.idle = t_pool;
    t_pool = nullptr;
    t_ended = true;
  }
};

Pool* acquire_pool() {
  thread_local PoolReturn give_back_at_exit;
  (void)give_back_at_exit;
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  if (s.idle != nullptr) {
    t_pool = s.idle;
    s.idle = t_pool->next_idle;
    t_pool->next_idle = nullptr;
  } else {
    t_pool = new Pool;
  }
  return t_pool;
}

constexpr std::size_t class_of(std::size_t bytes) noexcept { return bytes == 0 ? 0 : (bytes - 1) / granule; }

}  // namespace

void* small_block_allocate(std::size_t bytes) {
  if constexpr (!pooled) return ::operator new(bytes);
  if (Pool* p = t_pool) return p->allocate(class_of(bytes));
  if (t_ended) {
    Shared& s = shared();
    std::lock_guard lock(s.mutex);
    return s.late.allocate(class_of(bytes));
  }
  return acquire_pool()->allocate(class_of(bytes));
}

void small_block_release(void* p, std::size_t bytes) noexcept {
  if constexpr (!pooled) return sized_delete(p, bytes);
  if (Pool* pool = t_pool) return pool->release(p, class_of(bytes));
  // A thread that never allocated, or one that is ending: the shared pool.
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  s.late.release(p, class_of(bytes));
}

}  // namespace duet::kv::detail
