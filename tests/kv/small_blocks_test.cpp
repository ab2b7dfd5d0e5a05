// The keyspace's small-block pools (src/kv/detail/small_blocks.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "kv/detail/small_blocks.hpp"

using duet::kv::detail::small_block_allocate;
using duet::kv::detail::small_block_max;
using duet::kv::detail::small_block_release;

namespace {

// Fills a block with a pattern of its own so an overlap between two live
// blocks shows as a changed pattern.
void fill(void* p, std::size_t n, unsigned char tag) { std::memset(p, tag, n); }
bool holds(const void* p, std::size_t n, unsigned char tag) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    if (b[i] != tag) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("small blocks of every size are 8-byte aligned and never overlap while live", "[kv][small_blocks]") {
  struct Live {
    void* p;
    std::size_t n;
    unsigned char tag;
  };
  std::vector<Live> live;
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = 1 + static_cast<std::size_t>(round) % small_block_max;
    void* p = small_block_allocate(n);
    REQUIRE(reinterpret_cast<std::uintptr_t>(p) % 8 == 0);
    const auto tag = static_cast<unsigned char>(round);
    fill(p, n, tag);
    live.push_back({p, n, tag});
    if (round % 3 == 2) {  // free one in three, from the middle, so freed blocks are reused
      Live gone = live[live.size() / 2];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(live.size() / 2));
      REQUIRE(holds(gone.p, gone.n, gone.tag));
      small_block_release(gone.p, gone.n);
    }
  }
  for (const Live& b : live) {
    CHECK(holds(b.p, b.n, b.tag));
    small_block_release(b.p, b.n);
  }
}

TEST_CASE("a small block freed on another thread is safe to reuse on both", "[kv][small_blocks]") {
  std::vector<void*> made(1000);
  std::thread maker([&] {
    for (void*& p : made) {
      p = small_block_allocate(40);
      fill(p, 40, 0xAB);
    }
  });
  maker.join();  // its pool went back to be reused by the next thread
  std::thread freer([&] {
    for (void* p : made) {
      REQUIRE(holds(p, 40, 0xAB));
      small_block_release(p, 40);
    }
    // This thread's own blocks of the class (maker's pool, handed on) do
    // not overlap one another.
    std::set<void*> again;
    for (int i = 0; i < 1000; ++i) {
      void* p = small_block_allocate(33);
      fill(p, 33, 0xCD);
      again.insert(p);
    }
    CHECK(again.size() == 1000);
    for (void* p : again) small_block_release(p, 33);
  });
  freer.join();
}

TEST_CASE("small blocks freed on a thread that never allocated are kept for later", "[kv][small_blocks]") {
  void* p = nullptr;
  std::thread maker([&] { p = small_block_allocate(8); });
  maker.join();
  std::thread freer([&] { small_block_release(p, 8); });  // takes the shared, locked path
  freer.join();
  void* q = small_block_allocate(8);
  fill(q, 8, 1);
  CHECK(holds(q, 8, 1));
  small_block_release(q, 8);
}
