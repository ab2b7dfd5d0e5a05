// ZsetTree's node helpers (kv/types/zset_tree.hpp), shared by its change
// and read halves (zset_tree.cpp, zset_tree_reads.cpp). Private to them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "kv/types/zset_tree.hpp"

namespace duet::kv::zset_nodes {

using detail::ZsetEntry;
using detail::ZsetInner;
using detail::ZsetLeaf;
using detail::ZsetNode;
inline constexpr std::size_t leaf_cap = detail::zset_leaf_capacity;
inline constexpr std::size_t inner_cap = detail::zset_inner_capacity;

// glibc's malloc: the request plus an 8-byte header, rounded up to 16, at
// least 32. memory_bytes() counts what malloc really takes, not the request.
constexpr std::size_t malloc_chunk(std::size_t n) {
  return std::max<std::size_t>(32, (n + 8 + 15) & ~std::size_t{15});
}

inline std::size_t entry_request(std::size_t length) {
  return std::max(sizeof(ZsetEntry), (length < 0xff ? 9 : 13) + length);
}

inline std::size_t capacity_of(const ZsetNode* n) { return n->leaf ? leaf_cap : inner_cap; }

inline std::size_t subtree_count(const ZsetNode* n) {
  if (n->leaf) return n->size;
  const auto* in = static_cast<const ZsetInner*>(n);
  std::size_t total = 0;
  for (std::size_t i = 0; i < in->size; ++i) total += in->counts[i];
  return total;
}

inline ZsetEntry* min_of(const ZsetNode* n) {
  return n->leaf ? static_cast<const ZsetLeaf*>(n)->items[0] : static_cast<const ZsetInner*>(n)->min_entries[0];
}

inline void refresh_min(ZsetInner* in, std::size_t i) {
  in->min_entries[i] = min_of(in->children[i]);
  in->min_scores[i] = in->min_entries[i]->score;
}

// Applies f to each parallel array of two nodes of one kind.
template <class F>
void for_each_array(ZsetLeaf* a, ZsetLeaf* b, F f) {
  f(a->items, b->items);
}
template <class F>
void for_each_array(ZsetInner* a, ZsetInner* b, F f) {
  f(a->counts, b->counts);
  f(a->min_scores, b->min_scores);
  f(a->min_entries, b->min_entries);
  f(a->children, b->children);
}

// Opens slot `pos` (room known).
template <class N>
void open_slot(N* n, std::size_t pos) {
  for_each_array(n, n, [&](auto* x, auto*) { std::copy_backward(x + pos, x + n->size, x + n->size + 1); });
  ++n->size;
}
template <class N>
void close_slot(N* n, std::size_t pos) {
  for_each_array(n, n, [&](auto* x, auto*) { std::copy(x + pos + 1, x + n->size, x + pos); });
  --n->size;
}
// Moves b's first k slots to the end of a.
template <class N>
void shift_left(N* a, N* b, std::size_t k) {
  for_each_array(a, b, [&](auto* x, auto* y) {
    std::copy_n(y, k, x + a->size);
    std::copy(y + k, y + b->size, y);
  });
  a->size = static_cast<std::uint16_t>(a->size + k);
  b->size = static_cast<std::uint16_t>(b->size - k);
}
// Moves a's last k slots to the front of b.
template <class N>
void shift_right(N* a, N* b, std::size_t k) {
  for_each_array(a, b, [&](auto* x, auto* y) {
    std::copy_backward(y, y + b->size, y + b->size + k);
    std::copy_n(x + a->size - k, k, y);
  });
  a->size = static_cast<std::uint16_t>(a->size - k);
  b->size = static_cast<std::uint16_t>(b->size + k);
}

inline void put_child(ZsetInner* in, std::size_t pos, ZsetNode* child) {
  open_slot(in, pos);
  in->children[pos] = child;
  in->counts[pos] = subtree_count(child);
  refresh_min(in, pos);
}

// before(score, entry) is true for a prefix of the order (score == entry->score,
// passed apart so inner nodes compare their inline copy and read the entry only
// on a tie). The last child whose min key is before the bound, or child 0.
// The first index in [lo, hi) where before_at(i) is false (hi if none).
template <class BeforeAt>
std::size_t partition_point(std::size_t lo, std::size_t hi, BeforeAt before_at) {
  while (lo < hi) {
    std::size_t mid = (lo + hi) / 2;
    if (before_at(mid)) lo = mid + 1; else hi = mid;
  }
  return lo;
}
template <class Before>
std::size_t child_holding(const ZsetInner* in, Before& before) {
  return partition_point(1, in->size, [&](std::size_t i) { return before(in->min_scores[i], in->min_entries[i]); }) - 1;
}
template <class Before>
std::size_t items_before(const ZsetLeaf* leaf, Before& before) {
  return partition_point(0, leaf->size, [&](std::size_t i) { return before(leaf->items[i]->score, leaf->items[i]); });
}

inline auto before_key(double score, std::string_view member) {
  return [score, member](double s, const ZsetEntry* x) { return s < score || (s == score && x->member() < member); };
}

}  // namespace duet::kv::zset_nodes
