// The sorted set's two encodings (kv/types/zset.hpp), for zset.cpp and
// zset_listpack.cpp only: ListpackZset (one allocation, entries in order)
// and TreeZset (a ZsetTree).
//
// A listpack entry is [varint member length][member][score]; a score is a
// tag byte then its bytes: tag 1..7, a signed integer of that many bytes
// little-endian (integral scores of at most 2^53 in magnitude, read back
// exactly as the double, except -0.0 which reads back as 0.0, as Redis's); tag 0, the 8 bytes of the double. The
// payload is [varint payload length][entries...], in (score, member) order.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kv/types/zset.hpp"

namespace duet::kv::zset_detail {

// Walks a listpack payload entry by entry.
struct EntryCursor {
  const char* p;
  const char* end;

  [[nodiscard]] bool done() const noexcept { return p >= end; }
  // The entry at p (and where it starts, if asked); advances past it.
  ZsetObject::Element next(const char** start = nullptr) noexcept;
};

// Appends one entry as the listpack holds it.
void append_entry(std::string& out, std::string_view member, double score);
[[nodiscard]] std::size_t entry_bytes(std::string_view member, double score) noexcept;

class ListpackZset final : public ZsetObject {
 public:
  [[nodiscard]] static ObjectPtrOf<ListpackZset> make(std::string_view payload);
  // The object is as long as its payload: free exactly what make() took.
  static void operator delete(ListpackZset* p, std::destroying_delete_t) noexcept;

  [[nodiscard]] std::string_view payload() const noexcept;
  [[nodiscard]] EntryCursor entries() const noexcept {
    const std::string_view all = payload();
    return {all.data(), all.data() + all.size()};
  }
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] std::size_t memory_usage() const noexcept;
  // The member's rank and score, if present.
  [[nodiscard]] std::optional<std::pair<std::size_t, double>> find(std::string_view member) const noexcept;
  [[nodiscard]] Element at(std::size_t rank) const noexcept;
  void visit(std::size_t from_rank, std::size_t count, bool reverse, Visit visit) const;
  // How many leading elements satisfy `before` (a prefix of the order).
  template <class Before>
  [[nodiscard]] std::size_t count_while(Before before) const noexcept {
    std::size_t n = 0;
    for (EntryCursor c = entries(); !c.done(); ++n) {
      if (!before(c.next())) break;
    }
    return n;
  }

 private:
  ListpackZset() noexcept : ZsetObject(listpack_tag) {}
  [[nodiscard]] char* bytes() noexcept { return reinterpret_cast<char*>(this + 1); }
  [[nodiscard]] const char* bytes() const noexcept { return reinterpret_cast<const char*>(this + 1); }
};
static_assert(sizeof(ListpackZset) == 1, "the payload follows the 1-byte header");

class TreeZset final : public ZsetObject {
 public:
  ZsetTree tree;

  TreeZset() noexcept : ZsetObject(tree_tag) {}
  [[nodiscard]] std::size_t memory_usage() const noexcept { return sizeof(TreeZset) + tree.memory_bytes(); }
};

// Payload edits on a buffer being built (a write makes the new object from it).
// The byte span of member's entry and its rank; end == 0 if absent.
struct EntrySpan {
  std::size_t start = 0;
  std::size_t end = 0;
};
[[nodiscard]] EntrySpan locate(std::string_view payload, std::string_view member) noexcept;
// Inserts (member, score) in order; the member must be absent.
void insert_sorted(std::string& payload, std::string_view member, double score);
// The byte span of ranks start..stop (stop within the payload).
[[nodiscard]] EntrySpan rank_span(std::string_view payload, std::size_t start, std::size_t stop) noexcept;

}  // namespace duet::kv::zset_detail
