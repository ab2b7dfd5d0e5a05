// ZsetTree's changes (its reads: zset_tree_reads.cpp). Every change goes down from the root by recursion, so
// the path is on the stack and no node keeps a parent pointer: an inner node
// fixes its child's count and min key when the call into the child returns,
// and takes a child that fell under half full to a sibling (merge, or share).
#include "kv/types/zset_tree.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <new>
#include <vector>

#include "kv/types/zset_nodes.hpp"

namespace duet::kv {
using namespace zset_nodes;  // NOLINT: this file is the tree's own

// ---- entries and nodes ----

ZsetTree::Entry* ZsetTree::new_entry(std::string_view member, double score) {
  assert(!std::isnan(score));
  assert(member.size() <= UINT32_MAX);
  std::size_t bytes = entry_request(member.size());
  char* p = reinterpret_cast<char*>(detail::CountingAllocator<std::byte>{}.allocate(bytes));
  auto* e = ::new (p) Entry{score, static_cast<unsigned char>(std::min<std::size_t>(member.size(), 0xff))};
  if (member.size() >= 0xff) {
    auto n = static_cast<std::uint32_t>(member.size());
    std::memcpy(p + 9, &n, sizeof n);
  }
  if (!member.empty()) std::memcpy(p + e->header_bytes(), member.data(), member.size());
  entry_bytes_ += malloc_chunk(bytes);
  return e;
}

void ZsetTree::free_entry(Entry* e) noexcept {
  std::size_t bytes = entry_request(e->length());
  entry_bytes_ -= malloc_chunk(bytes);
  detail::CountingAllocator<std::byte>{}.deallocate(reinterpret_cast<std::byte*>(e), bytes);
}

ZsetTree::Leaf* ZsetTree::new_leaf() {
  void* p = detail::CountingAllocator<Leaf>{}.allocate(1);
  ++leaves_;
  return ::new (p) Leaf;
}

ZsetTree::Inner* ZsetTree::new_inner() {
  void* p = detail::CountingAllocator<Inner>{}.allocate(1);
  ++inners_;
  auto* in = ::new (p) Inner;
  in->leaf = false;
  return in;
}

void ZsetTree::free_node(Node* node) noexcept {
  if (node->leaf) {
    --leaves_;
    detail::CountingAllocator<Leaf>{}.deallocate(static_cast<Leaf*>(node), 1);
  } else {
    --inners_;
    detail::CountingAllocator<Inner>{}.deallocate(static_cast<Inner*>(node), 1);
  }
}

void ZsetTree::free_subtree(Node* node) noexcept {
  if (node->leaf) {
    auto* leaf = static_cast<Leaf*>(node);
    for (std::size_t i = 0; i < leaf->size; ++i) free_entry(leaf->items[i]);
  } else {
    auto* in = static_cast<Inner*>(node);
    for (std::size_t i = 0; i < in->size; ++i) free_subtree(in->children[i]);
  }
  free_node(node);
}

void ZsetTree::clear() noexcept {
  if (root_ != nullptr) free_subtree(root_);
  root_ = nullptr;
  index_.clear();
}

void ZsetTree::swap(ZsetTree& other) noexcept {
  std::swap(root_, other.root_);
  index_.swap(other.index_);
  std::swap(entry_bytes_, other.entry_bytes_);
  std::swap(leaves_, other.leaves_);
  std::swap(inners_, other.inners_);
}

std::size_t ZsetTree::memory_bytes() const noexcept {
  std::size_t cap = index_.capacity();
  std::size_t index = cap == 0 ? 0 : malloc_chunk(cap * sizeof(std::uint64_t));
  return entry_bytes_ + leaves_ * malloc_chunk(sizeof(Leaf)) + inners_ * malloc_chunk(sizeof(Inner)) + index;
}


// ---- insert ----

bool ZsetTree::insert(std::string_view member, double score) {
  if (index_.find(member) != nullptr) return false;
  Entry* e = new_entry(member, score);
  index_.insert(e);
  tree_insert(e);
  return true;
}

void ZsetTree::tree_insert(Entry* e) {
  if (root_ == nullptr) root_ = new_leaf();
  if (Node* split = insert_into(root_, e)) {
    Inner* top = new_inner();
    put_child(top, 0, root_);
    put_child(top, 1, split);
    root_ = top;
  }
}

// Inserts e under node; returns the new right sibling when node split.
ZsetTree::Node* ZsetTree::insert_into(Node* node, Entry* e) {
  auto before = before_key(e->score, e->member());
  if (node->leaf) {
    auto* leaf = static_cast<Leaf*>(node);
    std::size_t pos = items_before(leaf, before);
    if (leaf->size < leaf_cap) {
      open_slot(leaf, pos);
      leaf->items[pos] = e;
      return nullptr;
    }
    Leaf* right = new_leaf();
    // Appending at the right edge (rising scores: timestamps, counters) or
    // prepending at the left keeps this leaf full; else split in halves.
    std::size_t keep = leaf_cap / 2;
    if (pos == leaf_cap && leaf->next == nullptr) keep = leaf_cap;
    if (pos == 0 && leaf->prev == nullptr) keep = 1;
    shift_right(leaf, right, leaf_cap - keep);
    right->prev = leaf;
    right->next = leaf->next;
    if (leaf->next != nullptr) leaf->next->prev = right;
    leaf->next = right;
    Leaf* into = pos <= keep && keep < leaf_cap ? leaf : right;
    std::size_t at = into == leaf ? pos : pos - keep;
    open_slot(into, at);
    into->items[at] = e;
    return right;
  }
  auto* in = static_cast<Inner*>(node);
  std::size_t i = child_holding(in, before);
  Node* split = insert_into(in->children[i], e);
  ++in->counts[i];
  refresh_min(in, i);
  if (split == nullptr) return nullptr;
  in->counts[i] -= subtree_count(split);
  if (in->size < inner_cap) {
    put_child(in, i + 1, split);
    return nullptr;
  }
  Inner* right = new_inner();
  shift_right(in, right, inner_cap / 2);
  if (i + 1 <= in->size) put_child(in, i + 1, split); else put_child(right, i + 1 - in->size, split);
  return right;
}

// ---- erase ----

bool ZsetTree::erase(std::string_view member) {
  Entry* e = index_.find(member);
  if (e == nullptr) return false;
  Entry* out[leaf_cap];
  tree_erase_run(*rank_of(member), 1, out);
  assert(out[0] == e);
  index_.erase(e);
  free_entry(e);
  return true;
}

bool ZsetTree::update_score(std::string_view member, double score) {
  assert(!std::isnan(score));
  Entry* e = index_.find(member);
  if (e == nullptr) return false;
  if (e->score == score) return true;  // as Redis: an equal score (0.0 for -0.0) changes nothing
  Entry* out[leaf_cap];
  tree_erase_run(*rank_of(member), 1, out);
  e->score = score;
  tree_insert(e);
  return true;
}

std::size_t ZsetTree::erase_range_by_rank(std::size_t start, std::size_t stop) {
  if (start >= size() || start > stop) return 0;
  std::size_t n = std::min(stop, size() - 1) - start + 1;
  Entry* out[leaf_cap];
  for (std::size_t removed = 0; removed < n;) {
    std::size_t k = tree_erase_run(start, n - removed, out);
    for (std::size_t j = 0; j < k; ++j) {
      index_.erase(out[j]);
      free_entry(out[j]);
    }
    removed += k;
  }
  return n;
}

std::optional<std::pair<std::string, double>> ZsetTree::pop_min() { return pop_at(0); }
std::optional<std::pair<std::string, double>> ZsetTree::pop_max() { return empty() ? std::nullopt : pop_at(size() - 1); }

std::optional<std::pair<std::string, double>> ZsetTree::pop_at(std::size_t rank) {
  if (empty()) return std::nullopt;
  Entry* out[leaf_cap];
  tree_erase_run(rank, 1, out);
  std::pair<std::string, double> popped{std::string(out[0]->member()), out[0]->score};
  index_.erase(out[0]);
  free_entry(out[0]);
  return popped;
}

// Takes up to n entries from `rank` on, within one leaf, into out (the index
// and the entries are the caller's); returns how many.
std::size_t ZsetTree::tree_erase_run(std::size_t rank, std::size_t n, Entry** out) {
  std::size_t k = erase_run(root_, rank, n, out);
  while (!root_->leaf && root_->size == 1) {
    Node* only = static_cast<Inner*>(root_)->children[0];
    free_node(root_);
    root_ = only;
  }
  if (root_->leaf && root_->size == 0) {
    free_node(root_);
    root_ = nullptr;
  }
  return k;
}

std::size_t ZsetTree::erase_run(Node* node, std::size_t rank, std::size_t n, Entry** out) {
  if (node->leaf) {
    auto* leaf = static_cast<Leaf*>(node);
    std::size_t k = std::min<std::size_t>(n, leaf->size - rank);
    std::copy_n(leaf->items + rank, k, out);
    std::copy(leaf->items + rank + k, leaf->items + leaf->size, leaf->items + rank);
    leaf->size = static_cast<std::uint16_t>(leaf->size - k);
    return k;
  }
  auto* in = static_cast<Inner*>(node);
  std::size_t i = 0;
  while (rank >= in->counts[i]) rank -= in->counts[i++];
  std::size_t k = erase_run(in->children[i], rank, n, out);
  in->counts[i] -= k;
  if (in->children[i]->size < capacity_of(in->children[i]) / 2) rebalance(in, i); else refresh_min(in, i);
  return k;
}

// Child i fell under half full: merge it with a sibling if both fit in one
// node, else share their slots evenly. The parent has at least two children.
void ZsetTree::rebalance(Inner* parent, std::size_t i) {
  std::size_t l = i + 1 < parent->size ? i : i - 1;
  Node* a = parent->children[l];
  Node* b = parent->children[l + 1];
  std::size_t total = std::size_t{a->size} + b->size;
  if (total <= capacity_of(a)) {
    if (a->leaf) {
      auto* la = static_cast<Leaf*>(a);
      auto* lb = static_cast<Leaf*>(b);
      shift_left(la, lb, lb->size);
      la->next = lb->next;
      if (lb->next != nullptr) lb->next->prev = la;
    } else {
      shift_left(static_cast<Inner*>(a), static_cast<Inner*>(b), b->size);
    }
    parent->counts[l] += parent->counts[l + 1];
    free_node(b);
    close_slot(parent, l + 1);
    refresh_min(parent, l);
    return;
  }
  std::size_t want = total / 2;
  auto share = [&](auto* x, auto* y) {
    if (x->size < want) shift_left(x, y, want - x->size); else shift_right(x, y, x->size - want);
  };
  if (a->leaf) share(static_cast<Leaf*>(a), static_cast<Leaf*>(b));
  else share(static_cast<Inner*>(a), static_cast<Inner*>(b));
  parent->counts[l] = subtree_count(a);
  parent->counts[l + 1] = subtree_count(b);
  refresh_min(parent, l);
  refresh_min(parent, l + 1);
}

}  // namespace duet::kv
