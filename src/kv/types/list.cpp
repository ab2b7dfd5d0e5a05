#include "kv/types/list.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "kv/types/list_node.hpp"

namespace duet::kv {
namespace {

constexpr std::size_t size_safety_limit = 8192;  // SIZE_SAFETY_LIMIT: a count-filled node's bytes
constexpr std::size_t fill_bytes[] = {4096, 8192, 16384, 32768, 65536};  // fill -1 .. -5
// Nodes filled by bytes stop at 128 elements: a walk to an element in the
// middle of a node stays short (~0.35 bytes per element of node overhead).
// Before elements had back-lengths, a tail pop walked its whole node: at 256
// elements RPOP P16 cost 0.91x Redis's CPU against LPOP's 0.60x.
constexpr std::uint32_t max_node_elements = 128;

// _quicklistNodeAllowInsert: may this node take `bytes` more?
bool node_allows(const ListNode* n, std::size_t bytes, int fill) noexcept {
  if (n->count == 0) return true;
  const std::size_t after = n->used + bytes;
  if (fill >= 0) return n->count < static_cast<std::uint32_t>(std::max(fill, 1)) && after <= size_safety_limit;
  const std::size_t level = fill < -5 ? 4 : static_cast<std::size_t>(-fill - 1);
  return after <= fill_bytes[level] && n->count < max_node_elements;
}

// After removals: a node at most half full gives its slack back.
void shrink_if_sparse(ListNode*& n) {
  if (n->capacity > 2 * static_cast<std::size_t>(n->used) + 64) node_shrink(n);
}

}  // namespace

// 1-byte header (object.hpp) and padding, nodes, size: a 24-byte small block
// (list5 is two blocks). The vtable pointer's 8 bytes went to padding: the
// nodes' pointer needs its alignment.
static_assert(sizeof(ListObject) == 24);

ListObject::~ListObject() {
  for (ListNode* n : nodes_) node_free(n);
}

std::size_t ListObject::memory_usage() const noexcept {
  std::size_t bytes = sizeof(*this);
  bytes += nodes_.heap_bytes();
  for (const ListNode* n : nodes_) bytes += n->allocated();
  return bytes;
}

ObjectPtr ListObject::clone() const {
  auto copy = make_object<ListObject>();
  for (const ListNode* n : nodes_) copy->nodes_.push_back(node_copy(n, n->used));
  copy->size_ = size_;
  return copy;
}

// RPUSH key e1 .. e64, as Redis's rewriteListObject.
// Elements are copied out: a visitor's view lasts one call.
void ListObject::write_records(std::string_view key, RecordSink sink) const {
  std::vector<std::string> batch;
  std::vector<std::string_view> argv;
  auto flush = [&] {
    if (batch.empty()) return;
    argv.assign({"RPUSH", key});
    argv.insert(argv.end(), batch.begin(), batch.end());
    sink(argv);
    batch.clear();
  };
  if (size_ == 0) return;
  visit_forward(0, size_, [&](std::size_t, std::string_view element) {
    batch.emplace_back(element);
    if (batch.size() == max_record_elements) flush();
    return true;
  });
  flush();
}

std::pair<std::size_t, std::size_t> ListObject::locate(std::size_t index) const noexcept {
  if (index < size_ / 2) {
    std::size_t k = 0;
    while (index >= nodes_[k]->count) index -= nodes_[k++]->count;
    return {k, index};
  }
  std::size_t k = nodes_.size() - 1;
  std::size_t from_tail = size_ - 1 - index;  // elements after `index`
  while (from_tail >= nodes_[k]->count) from_tail -= nodes_[k--]->count;
  return {k, nodes_[k]->count - 1 - from_tail};
}

void ListObject::drop_node(std::size_t k) noexcept {
  node_free(nodes_[k]);
  nodes_.erase(k);
}

void ListObject::push(ListEnd end, std::string_view element, int fill) {
  const bool head = end == ListEnd::head;
  const ListNode* last = nodes_.empty() ? nullptr : head ? nodes_.front() : nodes_.back();
  if (last == nullptr || !node_allows(last, entry_size(node_anchor(last), element), fill)) {
    if (last != nullptr) node_shrink(head ? nodes_.front() : nodes_.back());  // full: it will not grow
    ListNode* fresh = node_create(anchor_for(element), entry_size(anchor_for(element), element));
    if (head) {
      nodes_.insert(0, fresh);
    } else {
      nodes_.push_back(fresh);
    }
  }
  ListNode*& n = head ? nodes_.front() : nodes_.back();
  node_insert(n, head ? node_begin(n) : n->used, element);
  ++size_;
}

void ListObject::pop(ListEnd end, std::string& out) {
  const std::size_t k = end == ListEnd::head ? 0 : nodes_.size() - 1;
  ListNode*& n = nodes_[k];
  const std::size_t from = node_offset(n, end == ListEnd::head ? 0 : n->count - 1);
  EntryView element;
  const char* next = read_entry(node_anchor(n), n->data() + from, element);
  out.assign(element.prefix);
  out.append(element.suffix);
  --size_;
  if (n->count == 1) return drop_node(k);
  node_erase(n, from, static_cast<std::size_t>(next - n->data()), 1);
  shrink_if_sparse(n);
}

void ListObject::insert(std::size_t index, std::string_view element, int fill) {
  if (index == 0) return push(ListEnd::head, element, fill);
  if (index >= size_) return push(ListEnd::tail, element, fill);
  auto [k, i] = locate(index);
  if (node_allows(nodes_[k], entry_size(node_anchor(nodes_[k]), element), fill)) {
    node_insert(nodes_[k], node_offset(nodes_[k], i), element);
  } else if (i == 0 && k > 0 && node_allows(nodes_[k - 1], entry_size(node_anchor(nodes_[k - 1]), element), fill)) {
    node_insert(nodes_[k - 1], nodes_[k - 1]->used, element);  // the end of the node before
  } else {
    // Split: elements [i, count) move to a new node after this one, and the
    // element joins the first half (or a node of its own when that is full).
    ListNode*& n = nodes_[k];
    const std::size_t at = node_offset(n, i);
    // The second half keeps the anchor its elements were written against.
    ListNode* rest = node_create(node_anchor(n), n->used - at);
    std::memcpy(rest->data() + rest->used, n->data() + at, n->used - at);
    rest->used += static_cast<std::uint32_t>(n->used - at);
    rest->count = n->count - static_cast<std::uint32_t>(i);
    node_erase(n, at, n->used, rest->count);
    nodes_.insert(k + 1, rest);
    if (node_allows(nodes_[k], entry_size(node_anchor(nodes_[k]), element), fill)) {
      node_insert(nodes_[k], nodes_[k]->used, element);
    } else {
      ListNode* alone = node_create(anchor_for(element), entry_size(anchor_for(element), element));
      node_insert(alone, alone->used, element);  // after its anchor
      nodes_.insert(k + 1, alone);
    }
    node_shrink(nodes_[k]);
  }
  ++size_;
}

void ListObject::replace(std::size_t index, std::string_view element, int fill) {
  auto [k, i] = locate(index);
  ListNode*& n = nodes_[k];
  const std::size_t at = node_offset(n, i);
  EntryView old;
  const std::size_t old_end = static_cast<std::size_t>(read_entry(node_anchor(n), n->data() + at, old) - n->data());
  node_erase(n, at, old_end, 1);
  if (n->count != 0 && !node_allows(n, entry_size(node_anchor(n), element), fill)) {
    // Too big for this node (quicklistReplaceEntry): it goes in as an insert
    // does, beside or between, so no node outgrows its limit by much.
    --size_;
    return insert(index, element, fill);
  }
  node_insert(n, at, element);
}

void ListObject::erase(std::size_t index, std::size_t count) {
  if (index >= size_) return;
  count = std::min(count, size_ - index);
  auto [k, i] = locate(index);  // before the size changes: locate reads it
  size_ -= count;
  while (count != 0) {
    ListNode*& n = nodes_[k];
    const std::size_t here = std::min<std::size_t>(count, n->count - i);
    count -= here;
    if (here == n->count) {
      drop_node(k);  // the next node is now k
    } else {
      const std::size_t from = node_offset(n, i);
      node_erase(n, from, node_offset(n, i + here), here);
      shrink_if_sparse(n);
      ++k;
    }
    i = 0;
  }
}

std::size_t ListObject::remove(std::string_view element, std::size_t skip, std::size_t limit) {
  std::size_t removed = 0;
  for (std::size_t k = 0; k < nodes_.size() && (limit == 0 || removed < limit);) {
    ListNode*& n = nodes_[k];
    const std::string_view anchor = node_anchor(n);
    const char* read = n->data() + node_begin(n);
    const char* end = n->data() + n->used;
    char* write = n->data() + node_begin(n);
    std::uint32_t dropped = 0;
    while (read != end) {
      EntryView e;
      const char* next = read_entry(anchor, read, e);
      const bool match = e.equals(element) && (limit == 0 || removed < limit);
      if (match && skip != 0) {
        --skip;
      } else if (match) {
        ++removed;
        ++dropped;
        read = next;
        continue;
      }
      if (write != read) std::memmove(write, read, static_cast<std::size_t>(next - read));
      write += next - read;
      read = next;
    }
    n->used = static_cast<std::uint32_t>(write - n->data());
    n->count -= dropped;
    if (n->count == 0) {
      drop_node(k);
      continue;
    }
    if (dropped != 0) shrink_if_sparse(n);
    ++k;
  }
  size_ -= removed;
  return removed;
}

std::size_t ListObject::count_equal(std::string_view element) const {
  std::size_t matches = 0;
  if (size_ == 0) return 0;
  visit_forward(0, size_, [&](std::size_t, std::string_view e) {
    matches += e == element ? 1 : 0;
    return true;
  });
  return matches;
}

void ListObject::visit(std::size_t from, std::size_t count, bool reverse, Visitor visitor) const {
  if (count == 0 || from >= size_) return;
  if (reverse) return visit_backward(from, std::min(count, from + 1), visitor);
  visit_forward(from, std::min(count, size_ - from), visitor);
}

void ListObject::visit_forward(std::size_t from, std::size_t count, Visitor visitor) const {
  auto [k, i] = locate(from);
  std::size_t index = from;
  std::string scratch;
  std::string_view anchor = node_anchor(nodes_[k]);
  const char* p = nodes_[k]->data() + node_offset(nodes_[k], i);
  while (count != 0) {
    if (i == nodes_[k]->count) {
      anchor = node_anchor(nodes_[++k]);
      p = anchor.data() + anchor.size();
      i = 0;
    }
    EntryView e;
    p = read_entry(anchor, p, e);
    if (!visitor(index++, e.view(scratch))) return;
    ++i;
    --count;
  }
}

// Towards the head, each element found from the end of the one after it.
void ListObject::visit_backward(std::size_t from, std::size_t count, Visitor visitor) const {
  auto [k, i] = locate(from);
  std::size_t index = from;
  std::string scratch;
  const char* p = nodes_[k]->data() + node_offset(nodes_[k], i);
  for (;;) {
    const std::string_view anchor = node_anchor(nodes_[k]);
    EntryView e;
    read_entry(anchor, p, e);
    if (!visitor(index--, e.view(scratch)) || --count == 0) return;
    if (i == 0) {
      const ListNode* before = nodes_[--k];
      i = before->count - 1;
      p = before->data() + before->used;
    } else {
      --i;
    }
    p = entry_before(p);
  }
}

std::string ListObject::at(std::size_t index) const {
  auto [k, i] = locate(index);
  EntryView e;
  read_entry(node_anchor(nodes_[k]), nodes_[k]->data() + node_offset(nodes_[k], i), e);
  std::string out(e.prefix);
  out.append(e.suffix);
  return out;
}

}  // namespace duet::kv
