// Where Task frames come from: an allocator passed after std::allocator_arg,
// FramePool's size-class cache, and this thread's pool behind every Task.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/lifetime_counter.hpp"
#include "duet/task/frame_pool.hpp"
#include "duet/task/sync_wait.hpp"
#include "duet/task/task.hpp"

using duet::FramePool;
using duet::Task;
using duet::test::LifetimeCounter;
using duet::test::Tracked;

namespace {

// What a CountingAllocator (and every rebound copy of it) saw.
struct AllocationLog {
  std::size_t allocations = 0;
  std::size_t deallocations = 0;
  std::ptrdiff_t bytes_out = 0;   // allocated minus freed
  std::ptrdiff_t copies_alive = 0;
  std::set<void*> live;           // a pointer freed twice or never handed out fails here
  bool bad_free = false;
};

template <typename T>
struct CountingAllocator {
  using value_type = T;
  AllocationLog* log;

  explicit CountingAllocator(AllocationLog& l) noexcept : log(&l) { ++log->copies_alive; }
  template <typename U>
  CountingAllocator(const CountingAllocator<U>& other) noexcept : log(other.log) { ++log->copies_alive; }
  CountingAllocator(const CountingAllocator& other) noexcept : log(other.log) { ++log->copies_alive; }
  CountingAllocator& operator=(const CountingAllocator&) = default;
  ~CountingAllocator() { --log->copies_alive; }

  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    ++log->allocations;
    log->bytes_out += static_cast<std::ptrdiff_t>(n * sizeof(T));
    log->live.insert(p);
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ++log->deallocations;
    log->bytes_out -= static_cast<std::ptrdiff_t>(n * sizeof(T));
    if (log->live.erase(p) != 1) log->bad_free = true;
    std::allocator<T>{}.deallocate(p, n);
  }
  template <typename U>
  bool operator==(const CountingAllocator<U>& other) const noexcept {
    return log == other.log;
  }
};

// Lets an object's address escape. On a task: clang cannot elide its frame
// (HALO puts an elided frame in the caller's and calls no allocator), and
// these tests count calls. On an argument: it stays whole in the frame.
template <typename T>
void escape(T& object) {
  asm volatile("" : : "r"(&object) : "memory");
}

Task<int> add(std::allocator_arg_t, CountingAllocator<std::byte>, int a, int b) { co_return a + b; }

Task<int> add_and_log(std::allocator_arg_t, CountingAllocator<std::byte> alloc, AllocationLog& seen, int x) {
  seen = *alloc.log;  // what the log held while this frame was alive
  co_return x;
}

Task<int> fail(std::allocator_arg_t, CountingAllocator<std::byte>) {
  throw std::runtime_error("boom");
  co_return 0;
}

Task<int> catch_failure(std::allocator_arg_t, CountingAllocator<std::byte> alloc) {
  Task<int> child = fail(std::allocator_arg, alloc);
  escape(child);
  try {
    co_await std::move(child);
  } catch (const std::runtime_error&) {
    co_return -1;
  }
  co_return 0;
}

struct Adder {
  int base;
  // Lets an object's address escape. On a task: clang cannot elide its frame
// (HALO puts an elided frame in the caller's and calls no allocator), and
// these tests count calls. On an argument: it stays whole in the frame.
template <typename T>
void escape(T& object) {
  asm volatile("" : : "r"(&object) : "memory");
}

Task<int> add(std::allocator_arg_t, CountingAllocator<std::byte>, int x) const { co_return base + x; }
};

Task<int> plain(int x) { co_return x; }

void check_balanced(const AllocationLog& log) {
  CHECK(log.allocations == log.deallocations);
  CHECK(log.bytes_out == 0);
  CHECK(log.live.empty());
  CHECK_FALSE(log.bad_free);
  CHECK(log.copies_alive == 0);
}

}  // namespace

TEST_CASE("a task's frame comes from the allocator passed after std::allocator_arg and is freed once") {
  AllocationLog log;
  CHECK(duet::sync_wait(add(std::allocator_arg, CountingAllocator<std::byte>{log}, 2, 3)) == 5);
  CHECK(log.allocations == 1);
  check_balanced(log);
}

TEST_CASE("the frame is still allocated while the task runs") {
  AllocationLog log;
  AllocationLog seen;
  CHECK(duet::sync_wait(add_and_log(std::allocator_arg, CountingAllocator<std::byte>{log}, seen, 9)) == 9);
  CHECK(seen.allocations == 1);
  CHECK(seen.deallocations == 0);
  CHECK(seen.bytes_out > 0);
  check_balanced(log);
}

TEST_CASE("member-function and lambda tasks take the allocator after the object") {
  AllocationLog log;
  const Adder adder{40};
  CHECK(duet::sync_wait(adder.add(std::allocator_arg, CountingAllocator<std::byte>{log}, 2)) == 42);
  auto lambda = [](std::allocator_arg_t, CountingAllocator<std::byte>, int x) -> Task<int> { co_return x * 2; };
  CHECK(duet::sync_wait(lambda(std::allocator_arg, CountingAllocator<std::byte>{log}, 21)) == 42);
  CHECK(log.allocations == 2);
  check_balanced(log);
}

TEST_CASE("an exception from an allocator task reaches its awaiter and both frames are freed once") {
  AllocationLog log;
  CHECK(duet::sync_wait(catch_failure(std::allocator_arg, CountingAllocator<std::byte>{log})) == -1);
  CHECK(log.allocations == 2);
  check_balanced(log);
  CHECK_THROWS_WITH(duet::sync_wait(fail(std::allocator_arg, CountingAllocator<std::byte>{log})), "boom");
  CHECK(log.allocations == 3);
  check_balanced(log);
}

TEST_CASE("destroying a never-started allocator task frees its frame and arguments once") {
  AllocationLog log;
  LifetimeCounter counter;
  bool ran = false;
  {
    auto body = [](std::allocator_arg_t, CountingAllocator<std::byte>, Tracked, bool& flag) -> Task<void> {
      flag = true;
      co_return;
    };
    Task<void> task = body(std::allocator_arg, CountingAllocator<std::byte>{log}, Tracked{counter}, ran);
    escape(task);
    CHECK(log.allocations == 1);
    CHECK(log.deallocations == 0);
  }
  CHECK_FALSE(ran);
  CHECK(counter.alive() == 0);
  check_balanced(log);
}

TEST_CASE("frame pool reuses a freed block for the next allocation of its size class") {
  FramePool pool;
  void* a = pool.allocate(100);
  pool.deallocate(a, 100);
  CHECK(pool.stats().cached_blocks == 1);
  void* b = pool.allocate(110);  // same 16-byte class as 100
  CHECK(b == a);
  CHECK(pool.stats().reused == 1);
  CHECK(pool.stats().allocated == 1);
  void* c = pool.allocate(200);  // another class: a fresh block
  CHECK(c != a);
  CHECK(pool.stats().allocated == 2);
  pool.deallocate(b, 110);
  pool.deallocate(c, 200);
  CHECK(pool.stats().cached_blocks == 2);
}

TEST_CASE("frame pool holds no more idle bytes than its limit") {
  FramePool pool(256);
  std::vector<void*> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(pool.allocate(64));
  for (void* b : blocks) pool.deallocate(b, 64);
  CHECK(pool.stats().cached_bytes == 256);
  CHECK(pool.stats().cached_blocks == 4);
  pool.set_limit(0);
  CHECK(pool.stats().cached_blocks == 0);
  void* d = pool.allocate(64);
  pool.deallocate(d, 64);
  CHECK(pool.stats().cached_blocks == 0);
}

TEST_CASE("frame pool never caches blocks over its largest class") {
  FramePool pool;
  void* big = pool.allocate(FramePool::largest_pooled + 1);
  pool.deallocate(big, FramePool::largest_pooled + 1);
  CHECK(pool.stats().cached_blocks == 0);
  void* edge = pool.allocate(FramePool::largest_pooled);
  pool.deallocate(edge, FramePool::largest_pooled);
  CHECK(pool.stats().cached_blocks == 1);
  pool.release();
  CHECK(pool.stats().cached_bytes == 0);
}

TEST_CASE("task frames are recycled by this thread's pool unless ASan is on") {
  duet::set_frame_pool_limit(FramePool::default_limit);
  const duet::FramePoolStats before = duet::frame_pool_stats();
  for (int i = 0; i < 100; ++i) CHECK(duet::sync_wait(plain(i)) == i);
  const duet::FramePoolStats after = duet::frame_pool_stats();
  if constexpr (duet::frame_pool_recycles) {
    // sync_wait's own runner frame is not a Task; the task's frame is, and
    // after the first round it always comes back from the cache.
    CHECK(after.reused - before.reused >= 99);
    CHECK(after.cached_blocks >= 1);
  } else {
    CHECK(after.reused == before.reused);
    CHECK(after.allocated == before.allocated);
  }
}

TEST_CASE("a never-started task's frame goes back to this thread's pool") {
  duet::set_frame_pool_limit(FramePool::default_limit);
  LifetimeCounter counter;
  auto body = [](Tracked) -> Task<int> { co_return 1; };
  {
    Task<int> warm = body(Tracked{counter});  // the class now has a cached block
    escape(warm);
  }
  const duet::FramePoolStats before = duet::frame_pool_stats();
  {
    Task<int> task = body(Tracked{counter});
    escape(task);
  }
  const duet::FramePoolStats after = duet::frame_pool_stats();
  CHECK(counter.alive() == 0);
  if constexpr (duet::frame_pool_recycles) {
    CHECK(after.reused == before.reused + 1);
    CHECK(after.cached_blocks == before.cached_blocks);
  }
}

TEST_CASE("a thread with a zero pool limit hands every task frame back to the global allocator") {
  std::thread([] {
    duet::set_frame_pool_limit(0);
    for (int i = 0; i < 10; ++i) CHECK(duet::sync_wait(plain(i)) == i);
    CHECK(duet::frame_pool_stats().cached_blocks == 0);
    CHECK(duet::frame_pool_stats().reused == 0);
  }).join();
}

TEST_CASE("a task frame freed on another thread goes to that thread's pool") {
  Task<int> task = plain(5);
  escape(task);
  duet::FramePoolStats there{};
  std::thread([&] {
    duet::set_frame_pool_limit(FramePool::default_limit);
    { Task<int> moved = std::move(task); }  // destroyed unstarted, here
    there = duet::frame_pool_stats();
  }).join();
  CHECK_FALSE(task.valid());
  if constexpr (duet::frame_pool_recycles) {
    CHECK(there.cached_blocks == 1);
  } else {
    CHECK(there.cached_blocks == 0);
  }
}

TEST_CASE("a task frame over the largest size class bypasses the pool's cache") {
  struct Big {
    std::array<char, 2 * FramePool::largest_pooled> bytes{};
  };
  auto body = [](Big big) -> Task<int> {
    escape(big);  // big stays in the frame (clang would keep only bytes[0])
    co_return big.bytes[0] + 1;
  };
  const duet::FramePoolStats before = duet::frame_pool_stats();
  for (int i = 0; i < 3; ++i) {
    Task<int> task = body(Big{});
    escape(task);
    CHECK(duet::sync_wait(std::move(task)) == 1);
  }
  const duet::FramePoolStats after = duet::frame_pool_stats();
  CHECK(after.reused == before.reused);  // big frames are never cached, so never reused
  CHECK(after.cached_bytes == before.cached_bytes);
}

TEST_CASE("a task whose std::allocator_arg is not followed by an allocator takes the default frame") {
  auto body = [](std::allocator_arg_t, int x) -> Task<int> { co_return x; };
  CHECK(duet::sync_wait(body(std::allocator_arg, 4)) == 4);
}
