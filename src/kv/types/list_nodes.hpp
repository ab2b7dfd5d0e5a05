// duet::kv::ListNodes — a ListObject's node pointers in 8 bytes: none, one
// node held in place (most lists), or a counted array of them.
//
// Contract
// - One pointer wide, so a ListObject is 24 bytes (1-byte header and padding,
//   nodes, size), one small block: a small list is this object and one node.
//   The low bit tells an array (size, capacity, then the pointers) from a node.
// - Arrays are counted (HeapString::allocate), double when full, halve when a
//   quarter full, and go back to the in-place form at one node; heap_bytes()
//   is what they hold. References from operator[] last until the next insert
//   or erase. Owns the array, not the nodes.
//
//   ListNodes nodes;
//   nodes.insert(0, node);          // in place
//   nodes.insert(1, other);         // now an array of two
//   for (ListNode* n : nodes) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kv/value/heap_string.hpp"

namespace duet::kv {

struct ListNode;

class ListNodes {
 public:
  ListNodes() = default;
  ListNodes(const ListNodes&) = delete;
  ListNodes& operator=(const ListNodes&) = delete;
  ~ListNodes() {
    if (is_array()) free_array(array());
  }

  [[nodiscard]] std::size_t size() const noexcept {
    return p_ == nullptr ? 0 : is_array() ? array()->size : 1;
  }
  [[nodiscard]] bool empty() const noexcept { return p_ == nullptr; }
  [[nodiscard]] ListNode** begin() noexcept { return is_array() ? items(array()) : &p_; }
  [[nodiscard]] ListNode** end() noexcept { return begin() + size(); }
  [[nodiscard]] ListNode* const* begin() const noexcept { return const_cast<ListNodes*>(this)->begin(); }
  [[nodiscard]] ListNode* const* end() const noexcept { return begin() + size(); }
  [[nodiscard]] ListNode*& operator[](std::size_t i) noexcept { return begin()[i]; }
  [[nodiscard]] ListNode* operator[](std::size_t i) const noexcept { return begin()[i]; }
  [[nodiscard]] ListNode*& front() noexcept { return begin()[0]; }
  [[nodiscard]] ListNode*& back() noexcept { return begin()[size() - 1]; }
  [[nodiscard]] std::size_t heap_bytes() const noexcept {
    return is_array() ? sizeof(Array) + array()->capacity * sizeof(ListNode*) : 0;
  }

  void insert(std::size_t pos, ListNode* node) {
    const std::size_t n = size();
    if (n == 0) {
      p_ = node;
      return;
    }
    if (n == 1 || array()->size == array()->capacity) resize(n == 1 ? 4 : 2 * n);
    Array* a = array();
    ListNode** at = items(a) + pos;
    std::memmove(at + 1, at, (n - pos) * sizeof(ListNode*));
    *at = node;
    ++a->size;
  }
  void push_back(ListNode* node) { insert(size(), node); }

  void erase(std::size_t pos) {
    if (!is_array()) {
      p_ = nullptr;
      return;
    }
    Array* a = array();
    ListNode** at = items(a) + pos;
    std::memmove(at, at + 1, (a->size - pos - 1) * sizeof(ListNode*));
    --a->size;
    if (a->size == 1) {
      ListNode* only = items(a)[0];
      free_array(a);
      p_ = only;
    } else if (a->capacity > 4 && 4 * a->size <= a->capacity) {
      resize(a->capacity / 2);
    }
  }

 private:
  struct Array {
    std::uint32_t size;
    std::uint32_t capacity;
  };

  [[nodiscard]] bool is_array() const noexcept { return (reinterpret_cast<std::uintptr_t>(p_) & 1) != 0; }
  [[nodiscard]] Array* array() const noexcept {
    return reinterpret_cast<Array*>(reinterpret_cast<std::uintptr_t>(p_) & ~std::uintptr_t{1});
  }
  static ListNode** items(Array* a) noexcept { return reinterpret_cast<ListNode**>(a + 1); }
  static void free_array(Array* a) noexcept {
    HeapString::release(a, sizeof(Array) + a->capacity * sizeof(ListNode*));
  }

  // Moves the pointers to an array of `capacity` (>= size()).
  void resize(std::size_t capacity) {
    const std::size_t n = size();
    auto* a = static_cast<Array*>(HeapString::allocate(sizeof(Array) + capacity * sizeof(ListNode*)));
    a->size = static_cast<std::uint32_t>(n);
    a->capacity = static_cast<std::uint32_t>(capacity);
    std::memcpy(items(a), begin(), n * sizeof(ListNode*));
    if (is_array()) free_array(array());
    p_ = reinterpret_cast<ListNode*>(reinterpret_cast<std::uintptr_t>(a) | 1);
  }

  ListNode* p_ = nullptr;
};

}  // namespace duet::kv
