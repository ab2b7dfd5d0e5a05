// duet::kv::SortVector — SORT's sorting vector (Redis's array of
// redisSortObject): the elements to sort, each with its weight, copied into
// one arena; and SortLookup, the pattern lookup BY and GET share.
//
// Contract
// - SortLookup::find is Redis's lookupKeyByPattern: "#" is the element
//   itself; otherwise the first '*' is replaced by the element and that key
//   is read (lookupKeyRead: hits, misses, "keymiss"), "key->field" reading a
//   hash's field; a key of another type, a missing field or a pattern with no
//   '*' find nothing. As Redis scans the pattern as a C string, a NUL byte
//   ends its search for '*' and "->". The view is valid until the next find
//   or write.
// - add() copies an element; element(i) is valid until the next add() or
//   weigh().
// - weigh() gives each element its weight, as sortCommandGeneric loads
//   them: the value `by` names (absent: weight 0, or no ALPHA key, which
//   sorts first) or the element itself. A numeric weight is strtod over the
//   text up to its first NUL, whole, neither NaN nor out of range (ERANGE);
//   false when one is not (the caller answers "One or more scores can't be
//   converted into double").
// - sort() is sortCompare: numeric weights ascending, ties bytewise by
//   element; ALPHA bytewise (with STORE: compareStringObjects) or by strcoll
//   (without), which in the C and C.UTF-8 locales Redis runs in is strcmp: a
//   NUL byte ends the string. DESC reverses. Equal weights (ALPHA BY) keep
//   their input order, as glibc's qsort (a merge sort) keeps them.
// - The thread of the CommandContext.
//
//   SortVector v;  v.add("3");  v.add("1");
//   if (v.weigh(ctx, nullptr, false)) v.sort({.desc = false, .alpha = false, .binary = false});
//   v.element(0) == "1";
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/value/value.hpp"

namespace duet::kv {

class SortLookup {
 public:
  [[nodiscard]] std::optional<std::string_view> find(CommandContext& ctx, std::string_view pattern,
                                                     std::string_view element);

 private:
  std::string key_;
  Value::Scratch scratch_;
};

struct SortOrder {
  bool desc = false;
  bool alpha = false;
  bool binary = false;  // STORE: ALPHA compares bytes, not C strings
};

class SortVector {
 public:
  void reserve(std::size_t n) { items_.reserve(n); }
  void add(std::string_view element);
  [[nodiscard]] std::size_t size() const noexcept { return items_.size(); }
  [[nodiscard]] std::string_view element(std::size_t i) const noexcept { return view(items_[i].at, items_[i].size); }

  [[nodiscard]] bool weigh(CommandContext& ctx, const std::string_view* by, bool alpha);
  void sort(SortOrder order);

 private:
  static constexpr std::size_t no_key = static_cast<std::size_t>(-1);
  struct Item {
    std::size_t at = 0;
    std::size_t size = 0;
    double score = 0;            // numeric weight
    std::size_t key_at = no_key;  // ALPHA BY's weight in the arena, or none
    std::size_t key_size = 0;
  };

  [[nodiscard]] std::string_view view(std::size_t at, std::size_t size) const noexcept {
    return {arena_.data() + at, size};
  }
  [[nodiscard]] int compare(const Item& a, const Item& b, SortOrder order) const noexcept;

  std::string arena_;
  std::vector<Item> items_;
  bool by_pattern_ = false;
};

}  // namespace duet::kv
