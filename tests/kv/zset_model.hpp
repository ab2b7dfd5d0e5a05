// The plain model the sorted-set tests compare against (zset_tree_test.cpp:
// the ZsetTree; zset_test.cpp: ZsetObject in both encodings): std::set of
// (score, member) for the order, std::map for the scores, and the checks of
// a set's ordered reads against a sorted snapshot of it. Any type with
// visit(from, count, reverse, fn), first_rank_with_score and
// last_rank_with_score fits the checks.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zset_model {

inline constexpr double inf = std::numeric_limits<double>::infinity();
using Key = std::pair<double, std::string>;  // Redis's order: -0.0 == 0.0, members bytewise

struct Model {
  std::set<Key> order;
  std::map<std::string, double> scores;

  bool insert(const std::string& m, double s) {
    if (!scores.emplace(m, s).second) return false;
    order.emplace(s, m);
    return true;
  }
  bool update(const std::string& m, double s) {
    auto it = scores.find(m);
    if (it == scores.end()) return false;
    if (it->second == s) return true;  // Redis keeps the score it has
    order.erase({it->second, m});
    order.emplace(s, m);
    it->second = s;
    return true;
  }
  bool erase(const std::string& m) {
    auto it = scores.find(m);
    if (it == scores.end()) return false;
    order.erase({it->second, m});
    scores.erase(it);
    return true;
  }
  std::size_t erase_ranks(std::size_t start, std::size_t stop) {
    if (start >= order.size() || start > stop) return 0;
    auto first = std::next(order.begin(), static_cast<long>(start));
    std::size_t n = std::min(stop, order.size() - 1) - start + 1;
    auto last = std::next(first, static_cast<long>(n));
    for (auto it = first; it != last; ++it) scores.erase(it->second);
    order.erase(first, last);
    return n;
  }
};

// How many leading elements of `sorted` satisfy `before` (a prefix of the order).
template <class Before>
std::size_t rank_where(const std::vector<Key>& sorted, Before before) {
  return static_cast<std::size_t>(std::partition_point(sorted.begin(), sorted.end(), before) - sorted.begin());
}

// The whole set in order.
template <class Set>
void check_in_order(const Set& z, const std::vector<Key>& sorted) {
  std::size_t i = 0;
  z.visit(0, sorted.size(), false, [&](std::string_view m, double s) {
    REQUIRE(Key{s, std::string(m)} == sorted[i++]);
    return true;
  });
  REQUIRE(i == sorted.size());
}

// `count` ranks from `r` (< size), up or down.
template <class Set>
void check_visit(const Set& z, const std::vector<Key>& sorted, std::size_t r, std::size_t count, bool reverse) {
  std::size_t at = r;
  std::size_t seen = 0;
  z.visit(r, count, reverse, [&](std::string_view m, double s) {
    REQUIRE(Key{s, std::string(m)} == sorted[at]);
    ++seen;
    at += reverse ? -1 : 1;
    return true;
  });
  REQUIRE(seen == std::min(count, reverse ? r + 1 : sorted.size() - r));
}

// The four score bounds at x.
template <class Set>
void check_score_bounds(const Set& z, const std::vector<Key>& sorted, double x) {
  const std::size_t at_least = rank_where(sorted, [&](const Key& k) { return k.first < x; });
  const std::size_t above = rank_where(sorted, [&](const Key& k) { return k.first <= x; });
  REQUIRE(z.first_rank_with_score(x, false) == at_least);
  REQUIRE(z.first_rank_with_score(x, true) == above);
  REQUIRE(z.last_rank_with_score(x, false) == (above == 0 ? std::nullopt : std::optional(above - 1)));
  REQUIRE(z.last_rank_with_score(x, true) == (at_least == 0 ? std::nullopt : std::optional(at_least - 1)));
}

}  // namespace zset_model
