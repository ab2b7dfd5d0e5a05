// duet::kv::ZsetTree — the ordered structure of a large sorted set: an
// order-statistic B+tree of (score, member) paired with a hash index by
// member (the part of issue 28 that Redis does with a skiplist and a dict).
//
// Contract
// - Order is Redis's: score ascending, ties by member bytewise (memcmp, then
//   length: std::string_view's order). -0.0 and 0.0 are equal scores; a score
//   reads back exactly as given. ±inf are valid scores, NaN never is (assert).
// - Each member's bytes live once, in a ZsetEntry (score, length, bytes in
//   one allocation). The tree's leaves hold pointers to entries, in order;
//   the index (ZsetIndex: an open-addressing table of the same pointers,
//   hashed by member) finds an entry by name in O(1) expected. Inner nodes
//   keep, per child, the number of elements under it (rank and select in
//   O(log n)) and its smallest key, with the score copied inline so a descent
//   reads another entry only on a score tie.
// - Measured per member (1M members of 10–20 bytes, docs/BENCHMARKS.md):
//   entry ~39 B, leaf slot ~13 B (leaves ~2/3 full), index ~11 B: 63.5 B in
//   all, 0.58x Redis's 110 B (MEMORY USAGE). A skiplist node carries a
//   backward pointer and ~1.33 (forward, span) levels beside the member's
//   sds and the dict's entry and bucket; here a member pays its bytes once
//   and one pointer in each structure, and a leaf's 60 pointers share one
//   header.
// - Memory exhaustion (bad_alloc) in the middle of a change is not undone.
// - Ranks are 0-based, ascending. An Element's member view and any pointer
//   into the tree stay valid until the next change to the tree.
// - memory_bytes() is kept as counters (entries' malloc chunks, node counts,
//   the index's capacity): O(1). Allocation goes through CountingAllocator,
//   so INFO memory counts it too.
// - Move-only; one thread (the store's).
//
//   ZsetTree z;
//   z.insert("a", 1.0);  z.insert("b", 0.5);
//   z.rank_of("a") == 1;  z.select(0).member == "b";
//   z.visit(0, 10, /*reverse=*/false, [](std::string_view m, double s) { ... });
//   z.first_rank_with_score(0.7, /*exclusive=*/false) == 1;
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kv/detail/counting_allocator.hpp"
#include "kv/detail/zset_index.hpp"

namespace duet::kv {
namespace detail {

struct ZsetNode {
  std::uint16_t size = 0;  // items (leaf) or children (inner)
  bool leaf = true;
};

// 60 pointers and the header fill a 512-byte chunk (bench: 60 beat 28 and 124).
inline constexpr std::size_t zset_leaf_capacity = 60;
inline constexpr std::size_t zset_inner_capacity = 32;

struct ZsetLeaf : ZsetNode {
  ZsetLeaf* prev = nullptr;
  ZsetLeaf* next = nullptr;
  ZsetEntry* items[zset_leaf_capacity];
};

struct ZsetInner : ZsetNode {
  std::size_t counts[zset_inner_capacity];      // elements under children[i]
  double min_scores[zset_inner_capacity];       // == min_entries[i]->score
  ZsetEntry* min_entries[zset_inner_capacity];  // the smallest key under children[i]
  ZsetNode* children[zset_inner_capacity];
};

}  // namespace detail

class ZsetTree {
 public:
  struct Element {
    std::string_view member;
    double score;
  };

  ZsetTree() = default;
  ZsetTree(const ZsetTree&) = delete;
  ZsetTree& operator=(const ZsetTree&) = delete;
  ZsetTree(ZsetTree&& other) noexcept { swap(other); }
  ZsetTree& operator=(ZsetTree&& other) noexcept {
    swap(other);
    return *this;
  }
  ~ZsetTree() { clear(); }

  // false when the member exists: it keeps its score (update_score moves it).
  bool insert(std::string_view member, double score);
  // false when the member is absent.
  bool update_score(std::string_view member, double score);
  bool erase(std::string_view member);
  void clear() noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return index_.size(); }
  [[nodiscard]] bool empty() const noexcept { return index_.empty(); }
  [[nodiscard]] std::optional<double> score_of(std::string_view member) const;
  [[nodiscard]] std::optional<std::size_t> rank_of(std::string_view member) const;
  // The element at `rank` < size().
  [[nodiscard]] Element select(std::size_t rank) const noexcept;

  // Ranks from `from_rank` on: upward, or downward when `reverse` (ranks
  // from_rank, from_rank - 1, …), at most `count` of them. visit(member,
  // score) may return bool: false stops. The tree must not change meanwhile.
  template <class Visit>
  void visit(std::size_t from_rank, std::size_t count, bool reverse, Visit&& visit) const;

  // The first rank whose score is >= x (> x if exclusive); size() if none.
  [[nodiscard]] std::size_t first_rank_with_score(double x, bool exclusive) const;
  // The last rank whose score is <= x (< x if exclusive); nullopt if none.
  [[nodiscard]] std::optional<std::size_t> last_rank_with_score(double x, bool exclusive) const;
  // The same by whole key (score, member): ZRANGEBYLEX over equal scores.
  [[nodiscard]] std::size_t first_rank_with_key(double score, std::string_view member, bool exclusive) const;
  [[nodiscard]] std::optional<std::size_t> last_rank_with_key(double score, std::string_view member,
                                                              bool exclusive) const;

  // The same over members alone (a lexicographic range: all scores equal).
  [[nodiscard]] std::size_t first_rank_with_member(std::string_view member, bool exclusive) const;
  [[nodiscard]] std::optional<std::size_t> last_rank_with_member(std::string_view member, bool exclusive) const;
  // ZSCAN over the index (ZsetIndex::scan): visit(member, score).
  template <class Visit>
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit&& visit) const {
    return index_.scan(cursor, count, [&](const Entry* e) { visit(e->member(), e->score); });
  }

  // Removes ranks start..stop inclusive (stop clamped to size() - 1); returns how many.
  std::size_t erase_range_by_rank(std::size_t start, std::size_t stop);
  std::optional<std::pair<std::string, double>> pop_min();
  std::optional<std::pair<std::string, double>> pop_max();

  // Heap bytes held: entries, nodes and the index, as glibc's malloc chunks.
  [[nodiscard]] std::size_t memory_bytes() const noexcept;
  // "" when ordering, counts, min keys, fill, leaf links and the index all
  // agree; else the first broken rule. O(n): for tests.
  [[nodiscard]] std::string check_invariants() const;

  void swap(ZsetTree& other) noexcept;

 private:
  using Entry = detail::ZsetEntry;
  using Node = detail::ZsetNode;
  using Leaf = detail::ZsetLeaf;
  using Inner = detail::ZsetInner;
  using Index = detail::ZsetIndex;
  struct Cursor {
    const Leaf* leaf;
    std::size_t pos;
  };

  [[nodiscard]] Cursor locate(std::size_t rank) const noexcept;
  template <class Before>
  [[nodiscard]] std::size_t count_before(Before before) const;
  Entry* new_entry(std::string_view member, double score);
  void free_entry(Entry* e) noexcept;
  void tree_insert(Entry* e);
  std::size_t tree_erase_run(std::size_t rank, std::size_t n, Entry** out);
  Node* insert_into(Node* node, Entry* e);
  std::size_t erase_run(Node* node, std::size_t rank, std::size_t n, Entry** out);
  void rebalance(Inner* parent, std::size_t i);
  std::optional<std::pair<std::string, double>> pop_at(std::size_t rank);
  Leaf* new_leaf();
  Inner* new_inner();
  void free_node(Node* node) noexcept;
  void free_subtree(Node* node) noexcept;

  Node* root_ = nullptr;  // null when empty
  Index index_;
  std::size_t entry_bytes_ = 0;  // malloc chunks of the entries
  std::size_t leaves_ = 0;
  std::size_t inners_ = 0;
};

template <class Visit>
void ZsetTree::visit(std::size_t from_rank, std::size_t count, bool reverse, Visit&& visit) const {
  if (from_rank >= size()) return;
  Cursor c = locate(from_rank);
  for (; count > 0; --count) {
    const Entry* e = c.leaf->items[c.pos];
    if constexpr (std::is_same_v<decltype(visit(e->member(), e->score)), bool>) {
      if (!visit(e->member(), e->score)) return;
    } else {
      visit(e->member(), e->score);
    }
    if (reverse) {
      if (c.pos-- == 0) {
        if ((c.leaf = c.leaf->prev) == nullptr) return;
        c.pos = c.leaf->size - 1u;
      }
    } else if (++c.pos == c.leaf->size) {
      if ((c.leaf = c.leaf->next) == nullptr) return;
      c.pos = 0;
    }
  }
}

}  // namespace duet::kv
