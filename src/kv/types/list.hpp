// duet::kv::ListObject — a list value: Redis's quicklist in spirit, a
// sequence of compact nodes, each one allocation of packed elements.
//
// Contract
// - A node is a 12-byte header (bytes used, capacity, element count), an
//   anchor (the first 32 bytes at most of the node's first element), and the
//   elements back to back, each stored as how many of the anchor's leading
//   bytes it starts with and the rest (list_node.hpp): "item:1000",
//   "item:1001", ... cost 6 bytes each (a back-length included), an element
//   unlike the anchor two bytes beyond itself when under 64 bytes. A list of 5 small elements is two
//   allocations (this object and one node).
// - `fill` is list-max-listpack-size as read at the write: a positive value
//   caps the elements per node (and a node at 8 KiB, SIZE_SAFETY_LIMIT), -1..-5
//   cap a node's bytes at 4..64 KiB. A node holds at least one element
//   whatever its size. A full node at an end is trimmed to its size when the
//   next node starts there, so big lists carry no growth slack.
// - OBJECT ENCODING is "quicklist" for every list, as Redis 7.0 answers.
// - Indexes are 0-based from the head; callers resolve negative indexes and
//   ranges (Redis's rules live in the commands). A view passed to a visitor
//   is valid for that call only (an element may be assembled in a buffer).
// - Every byte is counted (HeapString::allocate / CountingAllocator), and
//   memory_usage() is exactly what is held. One thread, the owning shard's.
//
//   auto list = make_object<ListObject>();
//   list->push(ListEnd::tail, "a", -2);
//   list->push(ListEnd::head, "b", -2);           // b a
//   list->visit(0, list->size(), false, [](std::size_t, std::string_view e) { ...; return true; });
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "kv/types/list_nodes.hpp"
#include "kv/value/object.hpp"

namespace duet::kv {

enum class ListEnd : std::uint8_t { head, tail };

class ListObject final : public Object {
 public:
  static constexpr ValueType value_type = ValueType::list;
  // (index, element) → true to go on.
  using Visitor = absl::FunctionRef<bool(std::size_t index, std::string_view element)>;

  ListObject() noexcept : Object(value_type) {}
  ~ListObject();

  [[nodiscard]] std::string_view encoding() const noexcept { return "quicklist"; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t memory_usage() const noexcept;
  [[nodiscard]] ObjectPtr clone() const;
  void write_records(std::string_view key, RecordSink sink) const;

  void push(ListEnd end, std::string_view element, int fill);
  // Removes the element at `end` into `out`. Precondition: size() > 0.
  void pop(ListEnd end, std::string& out);
  // Inserts so that the element ends up at `index` (<= size()).
  void insert(std::size_t index, std::string_view element, int fill);
  void replace(std::size_t index, std::string_view element, int fill);  // index < size()
  // Removes up to `count` elements from `index` on (clamped to the end).
  void erase(std::size_t index, std::size_t count);
  // Removes the elements equal to `element` from the head on, leaving the
  // first `skip` matches and stopping after `limit` removals (0: no limit).
  std::size_t remove(std::string_view element, std::size_t skip, std::size_t limit);
  [[nodiscard]] std::size_t count_equal(std::string_view element) const;
  // Visits `count` elements from `from` (< size()) on: towards the tail, or
  // towards the head when `reverse`; stops early when the visitor says so.
  void visit(std::size_t from, std::size_t count, bool reverse, Visitor visitor) const;
  [[nodiscard]] std::string at(std::size_t index) const;  // index < size()

  // Nodes, for the tests: the encoding's shape.
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }

 private:
  // The node holding `index` and the index inside it.
  [[nodiscard]] std::pair<std::size_t, std::size_t> locate(std::size_t index) const noexcept;
  void drop_node(std::size_t k) noexcept;
  void visit_forward(std::size_t from, std::size_t count, Visitor visitor) const;
  void visit_backward(std::size_t from, std::size_t count, Visitor visitor) const;

  ListNodes nodes_;
  std::size_t size_ = 0;
};

}  // namespace duet::kv
