// ZsetTree's reads (rank, select, score bounds) and its invariant check.
#include <algorithm>
#include <cassert>
#include <string>
#include <vector>

#include "kv/types/zset_nodes.hpp"
#include "kv/types/zset_tree.hpp"

namespace duet::kv {
using namespace zset_nodes;  // NOLINT: this file is the tree's own

// ---- reads ----

std::optional<double> ZsetTree::score_of(std::string_view member) const {
  const Entry* e = index_.find(member);
  if (e == nullptr) return std::nullopt;
  return e->score;
}

// Goes down to the leaf that holds the entry (the last child whose min key is
// <= it), then finds it there by pointer: no entry read in the leaf.
std::optional<std::size_t> ZsetTree::rank_of(std::string_view member) const {
  const Entry* e = index_.find(member);
  if (e == nullptr) return std::nullopt;
  auto not_after = [e](double s, const Entry* x) {
    return s < e->score || (s == e->score && (x == e || x->member() < e->member()));
  };
  std::size_t rank = 0;
  const Node* node = root_;
  while (!node->leaf) {
    const auto* in = static_cast<const Inner*>(node);
    std::size_t i = child_holding(in, not_after);
    for (std::size_t j = 0; j < i; ++j) rank += in->counts[j];
    node = in->children[i];
  }
  const auto* leaf = static_cast<const Leaf*>(node);
  return rank + static_cast<std::size_t>(std::find(leaf->items, leaf->items + leaf->size, e) - leaf->items);
}

ZsetTree::Cursor ZsetTree::locate(std::size_t rank) const noexcept {
  assert(rank < size());
  const Node* node = root_;
  while (!node->leaf) {
    const auto* in = static_cast<const Inner*>(node);
    std::size_t i = 0;
    while (rank >= in->counts[i]) rank -= in->counts[i++];
    node = in->children[i];
  }
  return {static_cast<const Leaf*>(node), rank};
}

ZsetTree::Element ZsetTree::select(std::size_t rank) const noexcept {
  Cursor c = locate(rank);
  const Entry* e = c.leaf->items[c.pos];
  return {e->member(), e->score};
}

// How many elements satisfy `before` (true for a prefix of the order).
template <class Before>
std::size_t ZsetTree::count_before(Before before) const {
  if (root_ == nullptr) return 0;
  std::size_t rank = 0;
  const Node* node = root_;
  while (!node->leaf) {
    const auto* in = static_cast<const Inner*>(node);
    std::size_t i = child_holding(in, before);
    for (std::size_t j = 0; j < i; ++j) rank += in->counts[j];
    node = in->children[i];
  }
  return rank + items_before(static_cast<const Leaf*>(node), before);
}

std::size_t ZsetTree::first_rank_with_score(double x, bool exclusive) const {
  if (exclusive) return count_before([x](double s, const Entry*) { return s <= x; });
  return count_before([x](double s, const Entry*) { return s < x; });
}

std::optional<std::size_t> ZsetTree::last_rank_with_score(double x, bool exclusive) const {
  std::size_t n = first_rank_with_score(x, !exclusive);  // elements <= x (< x)
  if (n == 0) return std::nullopt;
  return n - 1;
}

std::size_t ZsetTree::first_rank_with_key(double score, std::string_view member, bool exclusive) const {
  if (!exclusive) return count_before(before_key(score, member));
  return count_before([score, member](double s, const Entry* x) {
    return s < score || (s == score && x->member() <= member);
  });
}

std::optional<std::size_t> ZsetTree::last_rank_with_key(double score, std::string_view member,
                                                        bool exclusive) const {
  std::size_t n = first_rank_with_key(score, member, !exclusive);
  if (n == 0) return std::nullopt;
  return n - 1;
}

// Members alone: a prefix of the order only when the scores are all equal,
// and then the same ranks Redis's lexicographic descent finds.
std::size_t ZsetTree::first_rank_with_member(std::string_view member, bool exclusive) const {
  if (exclusive) return count_before([member](double, const Entry* x) { return x->member() <= member; });
  return count_before([member](double, const Entry* x) { return x->member() < member; });
}

std::optional<std::size_t> ZsetTree::last_rank_with_member(std::string_view member, bool exclusive) const {
  std::size_t n = first_rank_with_member(member, !exclusive);
  if (n == 0) return std::nullopt;
  return n - 1;
}

// ---- invariants ----

namespace {

struct InvariantWalk {
  std::vector<const ZsetLeaf*> leaves;
  std::size_t leaf_depth = SIZE_MAX;
  std::string error;

  std::size_t walk(const ZsetNode* node, std::size_t depth, bool root) {
    if (node->size > capacity_of(node)) error = "a node over capacity";
    if (!root && node->size == 0) error = "an empty node under the root";
    if (node->leaf) {
      if (leaf_depth != SIZE_MAX && leaf_depth != depth) error = "leaves at different depths";
      leaf_depth = depth;
      leaves.push_back(static_cast<const ZsetLeaf*>(node));
      return node->size;
    }
    const auto* in = static_cast<const ZsetInner*>(node);
    if (root && in->size < 2) error = "an inner root with one child";
    std::size_t total = 0;
    for (std::size_t i = 0; i < in->size; ++i) {
      std::size_t n = walk(in->children[i], depth + 1, false);
      if (n != in->counts[i]) error = "a child count that is not its subtree's size";
      if (n > 0 && in->min_entries[i] != min_of(in->children[i])) error = "a stale min key";
      if (in->min_scores[i] != in->min_entries[i]->score) error = "a min score unlike its entry's";
      total += n;
    }
    return total;
  }
};

}  // namespace

std::string ZsetTree::check_invariants() const {
  if (root_ == nullptr) return index_.empty() && leaves_ == 0 && inners_ == 0 ? "" : "an empty tree holding memory";
  InvariantWalk w;
  std::size_t n = w.walk(root_, 0, true);
  if (!w.error.empty()) return w.error;
  if (n != index_.size()) return "tree and index sizes differ";
  if (w.leaves.size() != leaves_) return "a wrong leaf count";
  const Entry* prev = nullptr;
  for (std::size_t i = 0; i < w.leaves.size(); ++i) {
    const Leaf* leaf = w.leaves[i];
    if (leaf->prev != (i == 0 ? nullptr : w.leaves[i - 1])) return "a broken prev link";
    if (leaf->next != (i + 1 == w.leaves.size() ? nullptr : w.leaves[i + 1])) return "a broken next link";
    for (std::size_t j = 0; j < leaf->size; ++j) {
      const Entry* e = leaf->items[j];
      if (prev != nullptr && !before_key(e->score, e->member())(prev->score, prev)) return "keys out of order";
      if (index_.find(e->member()) != e) return "an entry the index does not hold";
      prev = e;
    }
  }
  return "";
}

}  // namespace duet::kv
