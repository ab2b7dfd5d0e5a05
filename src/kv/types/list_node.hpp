// duet::kv::ListNode — one node of a ListObject: a counted allocation of
// packed elements that share a prefix with the node's anchor. Private to
// list.cpp.
//
// Contract
// - Layout after the 12-byte header: the anchor (a LEB128 length and its
//   bytes: the node's first element when it was made), then the elements.
//   An element is a LEB128 header h = suffix length << 1 | shared?, then, when
//   h & 1, a LEB128 count of the anchor's leading bytes it starts with, then
//   the rest of its bytes, then its back-length: the size of all that, in 7-bit
//   groups read from the element's end backwards (one byte below 128), so a
//   tail pop or an index near the end walks from the back as Redis's
//   listpack does (without it RPOP walked its node from the front: 2x LPOP's
//   instructions). The anchor is at most 32 bytes. Consecutive elements such as "item:1000",
//   "item:1001" ... cost a few bytes each; unrelated ones one byte more than
//   themselves, as without the anchor.
// - The anchor never changes while the node lives, so every element decodes
//   on its own: removing, replacing or moving elements is moving bytes.
// - Created by node_create(), freed by node_free(); functions that may grow a
//   node take it by reference and may move it. Offsets are byte offsets into
//   data(), elements start at node_begin().
//
//   ListNode* n = node_create(anchor_for("item:1"), entry_size(anchor_for("item:1"), "item:1"));
//   node_insert(n, n->used, "item:1");
//   EntryView e;  read_entry(n, n->data() + node_begin(n), e);  // e.equals("item:1")
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "kv/value/heap_string.hpp"

namespace duet::kv {

struct ListNode {
  std::uint32_t used;      // bytes of anchor and elements
  std::uint32_t capacity;  // bytes after the header
  std::uint32_t count;     // elements

  [[nodiscard]] char* data() noexcept { return reinterpret_cast<char*>(this + 1); }
  [[nodiscard]] const char* data() const noexcept { return reinterpret_cast<const char*>(this + 1); }
  [[nodiscard]] std::size_t allocated() const noexcept { return sizeof(ListNode) + capacity; }
};

[[nodiscard]] inline std::size_t varint_size(std::size_t n) noexcept {
  std::size_t bytes = 1;
  while (n >= 0x80) {
    n >>= 7;
    ++bytes;
  }
  return bytes;
}

inline const char* read_varint(const char* p, std::size_t& n) noexcept {
  n = 0;
  unsigned shift = 0;
  auto byte = static_cast<unsigned char>(*p++);
  while (byte & 0x80) {
    n |= static_cast<std::size_t>(byte & 0x7f) << shift;
    shift += 7;
    byte = static_cast<unsigned char>(*p++);
  }
  n |= static_cast<std::size_t>(byte) << shift;
  return p;
}

inline char* write_varint(char* p, std::size_t n) noexcept {
  while (n >= 0x80) {
    *p++ = static_cast<char>((n & 0x7f) | 0x80);
    n >>= 7;
  }
  *p++ = static_cast<char>(n);
  return p;
}

// An element as stored: the anchor's first bytes, then its own.
struct EntryView {
  std::string_view prefix;
  std::string_view suffix;

  [[nodiscard]] std::size_t size() const noexcept { return prefix.size() + suffix.size(); }
  [[nodiscard]] bool equals(std::string_view v) const noexcept {
    return v.size() == size() && v.substr(0, prefix.size()) == prefix && v.substr(prefix.size()) == suffix;
  }
  // The element's bytes: in place when nothing is shared, else in `scratch`.
  [[nodiscard]] std::string_view view(std::string& scratch) const {
    if (prefix.empty()) return suffix;
    scratch.assign(prefix);
    scratch.append(suffix);
    return scratch;
  }
};

[[nodiscard]] inline std::string_view node_anchor(const ListNode* n) noexcept {
  std::size_t length = 0;
  const char* p = read_varint(n->data(), length);
  return {p, length};
}

// Where the elements start: after the anchor.
[[nodiscard]] inline std::size_t node_begin(const ListNode* n) noexcept {
  const std::string_view anchor = node_anchor(n);
  return static_cast<std::size_t>(anchor.data() + anchor.size() - n->data());
}

// The back-length of an element whose other bytes number `body`: `body` in
// 7-bit groups, the lowest in the last byte, 0x80 on every byte but the first.
inline char* write_backlen(char* p, std::size_t body) noexcept {
  const std::size_t bytes = varint_size(body);
  for (std::size_t j = 0; j < bytes; ++j) {
    p[bytes - 1 - j] = static_cast<char>(((body >> (7 * j)) & 0x7f) | (j + 1 < bytes ? 0x80 : 0));
  }
  return p + bytes;
}

// The start of the element that ends at `end`.
[[nodiscard]] inline const char* entry_before(const char* end) noexcept {
  const char* p = end;
  std::size_t body = 0;
  unsigned shift = 0;
  unsigned char byte = 0;
  do {
    byte = static_cast<unsigned char>(*--p);
    body |= static_cast<std::size_t>(byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return p - body;
}

// Reads the element at `p` of a node with this anchor; returns the next element's start.
inline const char* read_entry(std::string_view anchor, const char* p, EntryView& out) noexcept {
  const char* const start = p;
  std::size_t header = 0;
  std::size_t shared = 0;
  p = read_varint(p, header);
  if (header & 1) p = read_varint(p, shared);
  out.prefix = anchor.substr(0, shared);
  out.suffix = {p, header >> 1};
  p += header >> 1;
  return p + varint_size(static_cast<std::size_t>(p - start));
}

// Leading bytes worth sharing: two or more (one would cost its own count).
[[nodiscard]] inline std::size_t shared_prefix(std::string_view anchor, std::string_view element) noexcept {
  const std::size_t limit = anchor.size() < element.size() ? anchor.size() : element.size();
  std::size_t n = 0;
  while (n < limit && anchor[n] == element[n]) ++n;
  return n >= 2 ? n : 0;
}

[[nodiscard]] inline std::size_t entry_size(std::string_view anchor, std::string_view element) noexcept {
  const std::size_t shared = shared_prefix(anchor, element);
  const std::size_t rest = element.size() - shared;
  const std::size_t body = varint_size(rest << 1 | (shared != 0 ? 1 : 0)) + (shared != 0 ? varint_size(shared) : 0) + rest;
  return body + varint_size(body);
}

inline char* write_entry(char* p, std::string_view anchor, std::string_view element) noexcept {
  char* const start = p;
  const std::size_t shared = shared_prefix(anchor, element);
  const std::size_t rest = element.size() - shared;
  p = write_varint(p, rest << 1 | (shared != 0 ? 1 : 0));
  if (shared != 0) p = write_varint(p, shared);
  if (rest != 0) std::memcpy(p, element.data() + shared, rest);
  p += rest;
  return write_backlen(p, static_cast<std::size_t>(p - start));
}

// A block the allocator hands out whole: malloc's chunks step by 16 bytes
// with 8 of header, so asking for 16k + 8 bytes wastes nothing.
[[nodiscard]] inline std::size_t node_block(std::size_t payload) noexcept {
  const std::size_t want = sizeof(ListNode) + payload;
  const std::size_t block = ((want + 8 + 15) & ~std::size_t{15}) - 8;
  return block < 24 ? 24 : block;
}

// A new node's anchor: the first bytes of its first element. Capped, so a
// node that loses a long first element keeps at most this much of it.
inline constexpr std::size_t max_anchor = 32;
[[nodiscard]] inline std::string_view anchor_for(std::string_view element) noexcept {
  return element.substr(0, max_anchor);
}

[[nodiscard]] inline std::size_t anchor_size(std::string_view anchor) noexcept {
  return varint_size(anchor.size()) + anchor.size();
}

// A node anchored on `anchor` with room for `payload` bytes of elements.
inline ListNode* node_create(std::string_view anchor, std::size_t payload) {
  const std::size_t head = anchor_size(anchor);
  const std::size_t block = node_block(head + payload);
  auto* n = static_cast<ListNode*>(HeapString::allocate(block));
  n->capacity = static_cast<std::uint32_t>(block - sizeof(ListNode));
  n->count = 0;
  char* p = write_varint(n->data(), anchor.size());
  if (!anchor.empty()) std::memcpy(p, anchor.data(), anchor.size());
  n->used = static_cast<std::uint32_t>(head);
  return n;
}

inline void node_free(ListNode* n) noexcept { HeapString::release(n, n->allocated()); }

// A node of `n`'s bytes in a block of room for `bytes` (>= n->used).
inline ListNode* node_copy(const ListNode* n, std::size_t bytes) {
  const std::size_t block = node_block(bytes);
  auto* copy = static_cast<ListNode*>(HeapString::allocate(block));
  copy->capacity = static_cast<std::uint32_t>(block - sizeof(ListNode));
  copy->used = n->used;
  copy->count = n->count;
  std::memcpy(copy->data(), n->data(), n->used);
  return copy;
}

// Moves the node to a block of room for `bytes` (>= used) after the header.
inline void node_resize(ListNode*& n, std::size_t bytes) {
  ListNode* moved = node_copy(n, bytes);
  node_free(n);
  n = moved;
}

// Room for `extra` more bytes: exact while small (a few elements stay one
// tight block), by half again beyond, so a growing node copies O(1) per byte.
inline void node_reserve(ListNode*& n, std::size_t extra) {
  std::size_t need = n->used + extra;
  if (need <= n->capacity) return;
  if (need > 256) need += need / 2;
  node_resize(n, need);
}

// Gives back the slack of a node that will not grow soon.
inline void node_shrink(ListNode*& n) {
  if (node_block(n->used) < n->allocated()) node_resize(n, n->used);
}

// Byte offset of element `i` (<= count): walked from whichever end is nearer.
[[nodiscard]] inline std::size_t node_offset(const ListNode* n, std::size_t i) noexcept {
  if (i > n->count / 2) {
    const char* p = n->data() + n->used;
    for (std::size_t back = n->count - i; back != 0; --back) p = entry_before(p);
    return static_cast<std::size_t>(p - n->data());
  }
  const std::string_view anchor = node_anchor(n);
  const char* p = anchor.data() + anchor.size();
  EntryView skipped;
  for (; i != 0; --i) p = read_entry(anchor, p, skipped);
  return static_cast<std::size_t>(p - n->data());
}

// Inserts `element` at byte offset `at` (allocates when the node is full).
inline void node_insert(ListNode*& n, std::size_t at, std::string_view element) {
  const std::size_t bytes = entry_size(node_anchor(n), element);
  node_reserve(n, bytes);
  char* p = n->data() + at;
  std::memmove(p + bytes, p, n->used - at);
  write_entry(p, node_anchor(n), element);
  n->used += static_cast<std::uint32_t>(bytes);
  ++n->count;
}

// Removes the `count` elements held in bytes [from, to).
inline void node_erase(ListNode* n, std::size_t from, std::size_t to, std::size_t count) noexcept {
  std::memmove(n->data() + from, n->data() + to, n->used - to);
  n->used -= static_cast<std::uint32_t>(to - from);
  n->count -= static_cast<std::uint32_t>(count);
}

}  // namespace duet::kv
