// FramePool: one singly linked free list per 16-byte size class, threaded
// through the cached blocks themselves (no side allocation). A block of class
// c is always allocated with its class size ((c + 1) * 16 bytes), so any cached
// block of a class serves any request of that class. (The global operator
// delete is called unsized: clang 14 declares the sized one only with
// -fsized-deallocation.)
//
// The thread's pool is a trivially destructible thread_local (initial-exec: a
// %fs-relative access, no __tls_get_addr call, no init guard): a hit costs a
// few loads and stores, less than malloc's own per-thread cache. Its destructor is a second
// thread_local, armed the first time the thread caches a block, that frees the
// cache at thread exit and sets the limit to 0, so frames freed later during
// that thread's teardown go straight to the global operator delete.
#include "duet/task/frame_pool.hpp"

#include <new>

namespace duet {

namespace detail {

namespace {

constexpr std::size_t class_of(std::size_t size) noexcept {
  return (size + FreeLists::granule - 1) / FreeLists::granule - 1;
}
constexpr std::size_t class_bytes(std::size_t cls) noexcept { return (cls + 1) * FreeLists::granule; }

// The bodies of allocate/deallocate, file-local so the thread pool's entry
// points below inline them instead of calling the exported members through
// the PLT.
inline void* take(FreeLists& lists, std::size_t size) {
  if (size == 0) size = 1;
  if (size > FreeLists::largest_pooled) {
    ++lists.stats_.allocated;
    return ::operator new(size);
  }
  const std::size_t cls = class_of(size);
  if (FreeLists::Block* block = lists.heads_[cls]) {
    lists.heads_[cls] = block->next;
    ++lists.stats_.reused;
    --lists.stats_.cached_blocks;
    lists.stats_.cached_bytes -= class_bytes(cls);
    return block;
  }
  ++lists.stats_.allocated;
  return ::operator new(class_bytes(cls));
}

inline void give_back(FreeLists& lists, void* block, std::size_t size) noexcept {
  if (size == 0) size = 1;
  if (size > FreeLists::largest_pooled) {
    ::operator delete(block);
    return;
  }
  const std::size_t cls = class_of(size);
  const std::size_t bytes = class_bytes(cls);
  if (lists.stats_.cached_bytes + bytes > lists.limit_) {
    ::operator delete(block);
    return;
  }
  lists.heads_[cls] = ::new (block) FreeLists::Block{lists.heads_[cls]};
  ++lists.stats_.cached_blocks;
  lists.stats_.cached_bytes += bytes;
}

}  // namespace

void* FreeLists::allocate(std::size_t size) { return take(*this, size); }

void FreeLists::deallocate(void* block, std::size_t size) noexcept { give_back(*this, block, size); }

void FreeLists::release() noexcept {
  for (std::size_t cls = 0; cls < class_count; ++cls) {
    while (Block* block = heads_[cls]) {
      heads_[cls] = block->next;
      ::operator delete(block);
    }
  }
  stats_.cached_blocks = 0;
  stats_.cached_bytes = 0;
}

void FreeLists::set_limit(std::size_t bytes) noexcept {
  if (bytes < stats_.cached_bytes) release();
  limit_ = bytes;
}

namespace {

[[gnu::tls_model("initial-exec")]] constinit thread_local FreeLists thread_lists;
[[gnu::tls_model("initial-exec")]] constinit thread_local bool thread_drain_armed = false;

struct ThreadDrain {
  ThreadDrain() noexcept { thread_drain_armed = true; }
  ~ThreadDrain() {
    thread_lists.release();
    thread_lists.limit_ = 0;
  }
};

void arm_thread_drain() noexcept {
  thread_local ThreadDrain drain;  // constructed (and its destructor registered) once
  (void)drain;
}

}  // namespace

void* allocate_task_frame(std::size_t size) {
  if constexpr (!frame_pool_recycles) return ::operator new(size);
  return take(thread_lists, size);
}

void deallocate_task_frame(void* frame, std::size_t size) noexcept {
  if constexpr (!frame_pool_recycles) {
    ::operator delete(frame);
    return;
  }
  if (!thread_drain_armed) arm_thread_drain();
  give_back(thread_lists, frame, size);
}

}  // namespace detail

FramePoolStats frame_pool_stats() noexcept { return detail::thread_lists.stats_; }

void set_frame_pool_limit(std::size_t bytes) noexcept { detail::thread_lists.set_limit(bytes); }

}  // namespace duet
