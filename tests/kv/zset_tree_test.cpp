// ZsetTree (the large sorted set's ordered structure) against a plain model:
// std::set of (score, member) for the order, std::map for the scores, under
// seeded random operations that grow the tree over several levels and shrink
// it again; every read is checked against a sorted snapshot of the model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kv/types/zset_tree.hpp"
#include "zset_model.hpp"

using duet::kv::ZsetTree;

namespace {

using zset_model::inf;
using zset_model::Key;
using zset_model::Model;

// Unique members of 0..100 bytes over a small alphabet with 0x00 and 0xff, so
// that ties in score compare long common prefixes and bytes above 0x7f.
std::vector<std::string> member_pool(std::mt19937_64& rng, std::size_t n) {
  static constexpr char alphabet[] = {'a', 'b', 'z', '\0', '\xff'};
  std::set<std::string> seen{""};
  std::vector<std::string> pool{""};
  while (pool.size() < n) {
    std::size_t roll = rng() % 10;
    std::size_t len = roll < 6 ? 1 + rng() % 8 : roll < 9 ? 9 + rng() % 22 : 31 + rng() % 70;
    std::string m;
    for (std::size_t i = 0; i < len; ++i) m += alphabet[rng() % sizeof alphabet];
    if (seen.insert(m).second) pool.push_back(std::move(m));
  }
  return pool;
}

// Scores with many ties, both infinities, both zeros and wide values.
double random_score(std::mt19937_64& rng) {
  switch (rng() % 10) {
    case 0: return rng() % 2 ? inf : -inf;
    case 1: return rng() % 2 ? 0.0 : -0.0;
    case 2: return std::ldexp(static_cast<double>(rng() % 1000) - 500, static_cast<int>(rng() % 2000) - 1000);
    case 3: case 4: return static_cast<double>(rng() % 1'000'000) / 7 - 70'000;
    default: return static_cast<double>(rng() % 40);
  }
}

// Every read of the tree against a sorted snapshot of the model.
void check_reads(const ZsetTree& tree, const Model& model, const std::vector<std::string>& pool,
                 std::mt19937_64& rng, int queries) {
  REQUIRE(tree.check_invariants() == "");
  REQUIRE(tree.size() == model.order.size());
  const std::vector<Key> sorted(model.order.begin(), model.order.end());
  zset_model::check_in_order(tree, sorted);
  auto rank_where = [&](auto before) { return zset_model::rank_where(sorted, before); };
  for (int q = 0; q < queries; ++q) {
    const std::string& m = pool[rng() % pool.size()];
    auto it = model.scores.find(m);
    if (it == model.scores.end()) {
      REQUIRE_FALSE(tree.rank_of(m).has_value());
      REQUIRE_FALSE(tree.score_of(m).has_value());
    } else {
      REQUIRE(tree.score_of(m) == it->second);
      REQUIRE(tree.rank_of(m) == rank_where([&](const Key& k) { return k < Key{it->second, m}; }));
    }
    double x = random_score(rng);
    zset_model::check_score_bounds(tree, sorted, x);
    const Key bound{x, m};
    std::size_t key_at_least = rank_where([&](const Key& k) { return k < bound; });
    std::size_t key_above = rank_where([&](const Key& k) { return k <= bound; });
    REQUIRE(tree.first_rank_with_key(x, m, false) == key_at_least);
    REQUIRE(tree.first_rank_with_key(x, m, true) == key_above);
    REQUIRE(tree.last_rank_with_key(x, m, true) ==
            (key_at_least == 0 ? std::nullopt : std::optional(key_at_least - 1)));
    if (sorted.empty()) continue;
    std::size_t r = rng() % sorted.size();
    ZsetTree::Element e = tree.select(r);
    REQUIRE(Key{e.score, std::string(e.member)} == sorted[r]);
    bool reverse = rng() % 2 == 0;
    zset_model::check_visit(tree, sorted, r, rng() % 150, reverse);
  }
}

// One batch of writes: mostly inserts while growing, mostly removals after.
void random_writes(ZsetTree& tree, Model& model, const std::vector<std::string>& pool, std::mt19937_64& rng,
                   int ops, bool growing) {
  for (int op = 0; op < ops; ++op) {
    const std::string& m = pool[rng() % pool.size()];
    double s = random_score(rng);
    // Shares of insert, update, erase, erase by ranks; the rest pops.
    static constexpr int grow[] = {75, 83, 90, 92};
    static constexpr int shrink[] = {10, 20, 75, 85};
    const int* share = growing ? grow : shrink;
    int roll = static_cast<int>(rng() % 100);
    if (roll < share[0]) {
      REQUIRE(tree.insert(m, s) == model.insert(m, s));
    } else if (roll < share[1]) {
      REQUIRE(tree.update_score(m, s) == model.update(m, s));
    } else if (roll < share[2]) {
      REQUIRE(tree.erase(m) == model.erase(m));
    } else if (roll < share[3]) {
      std::size_t start = model.order.empty() ? 0 : rng() % (model.order.size() + 2);
      std::size_t stop = start + (rng() % 64 == 0 ? rng() % 300 : rng() % 5);
      REQUIRE(tree.erase_range_by_rank(start, stop) == model.erase_ranks(start, stop));
    } else {
      bool min = roll % 2 == 0;
      auto popped = min ? tree.pop_min() : tree.pop_max();
      REQUIRE(popped.has_value() == !model.order.empty());
      if (!popped) continue;
      Key expected = min ? *model.order.begin() : *model.order.rbegin();
      REQUIRE(Key{popped->second, popped->first} == expected);
      model.erase(expected.second);
    }
  }
}

}  // namespace

TEST_CASE("ranks, bounds and visits match a sorted model over random inserts, updates and erases", "[zset]") {
  struct Run {
    std::uint64_t seed;
    std::size_t peak;  // members at the top of the growth phase
  };
  // 20,000 members are three levels of 60-slot leaves and 32-child inner nodes.
  for (Run run : {Run{1, 300}, Run{2, 2'000}, Run{3, 5'000}, Run{4, 20'000}, Run{5, 700}, Run{6, 9'000}}) {
    CAPTURE(run.seed);
    std::mt19937_64 rng(run.seed);
    std::vector<std::string> pool = member_pool(rng, run.peak * 2);
    ZsetTree tree;
    Model model;
    const int batch = std::max<int>(50, static_cast<int>(run.peak / 20));
    for (int batches = 0; model.order.size() < run.peak; ++batches) {
      REQUIRE(batches < 200);  // the writes' shares must grow the set
      random_writes(tree, model, pool, rng, batch, true);
      check_reads(tree, model, pool, rng, 40);
    }
    for (int batches = 0; !model.order.empty(); ++batches) {
      REQUIRE(batches < 200);
      random_writes(tree, model, pool, rng, batch, false);
      check_reads(tree, model, pool, rng, 40);
    }
    REQUIRE(tree.memory_bytes() == 0);
  }
}

TEST_CASE("an existing member keeps its score on insert and moves only by update_score", "[zset]") {
  ZsetTree tree;
  CHECK(tree.insert("a", 2));
  CHECK(tree.insert("b", 1));
  CHECK_FALSE(tree.insert("a", 0));
  CHECK(tree.score_of("a") == 2);
  CHECK(tree.rank_of("a") == 1);
  CHECK(tree.update_score("a", 0));
  CHECK(tree.rank_of("a") == 0);
  CHECK(tree.score_of("a") == 0);
  CHECK_FALSE(tree.update_score("c", 5));
  CHECK_FALSE(tree.erase("c"));
  CHECK(tree.check_invariants() == "");
}

TEST_CASE("infinities, the empty member and tied scores order as Redis orders them", "[zset]") {
  ZsetTree tree;
  tree.insert("x", inf);
  tree.insert("", 1);
  tree.insert("b", 1);
  tree.insert(std::string("a\0", 2), 1);
  tree.insert("a", 1);
  tree.insert("\xff", 1);
  tree.insert("y", -inf);
  std::vector<std::string> order;
  tree.visit(0, tree.size(), false, [&](std::string_view m, double) { order.emplace_back(m); });
  CHECK(order == std::vector<std::string>{"y", "", "a", std::string("a\0", 2), "b", "\xff", "x"});
  CHECK(tree.first_rank_with_score(1, true) == 6);
  CHECK(tree.first_rank_with_key(1, "a", true) == 3);
  CHECK(tree.last_rank_with_score(-inf, true) == std::nullopt);
  CHECK(tree.last_rank_with_score(inf, false) == 6);
}

TEST_CASE("a reverse visit from the last rank walks every element downward and a visitor can stop it", "[zset]") {
  ZsetTree tree;
  for (int i = 0; i < 1000; ++i) tree.insert("m" + std::to_string(i), i);
  double expected = 999;
  tree.visit(999, 5000, true, [&](std::string_view, double s) { CHECK(s == expected--); });
  CHECK(expected == -1);
  int seen = 0;
  tree.visit(10, 100, false, [&](std::string_view, double) { return ++seen < 3; });
  CHECK(seen == 3);
}

TEST_CASE("rising scores fill whole leaves where random scores leave room", "[zset]") {
  ZsetTree rising;
  ZsetTree falling;
  ZsetTree random;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 6000; ++i) {
    rising.insert("m" + std::to_string(i), i);
    falling.insert("m" + std::to_string(i), -i);
    random.insert("m" + std::to_string(i), static_cast<double>(rng() % 100000));
  }
  CHECK(rising.check_invariants() == "");
  CHECK(falling.check_invariants() == "");
  CHECK(rising.memory_bytes() < random.memory_bytes());
  CHECK(falling.memory_bytes() < random.memory_bytes());
}

TEST_CASE("erasing every rank empties the tree and frees all it held", "[zset]") {
  ZsetTree tree;
  for (int i = 0; i < 5000; ++i) tree.insert(std::string(static_cast<std::size_t>(i % 300), 'k') + std::to_string(i), i % 7);
  CHECK(tree.memory_bytes() > 5000 * 16);
  CHECK(tree.erase_range_by_rank(10, 10) == 1);
  CHECK(tree.erase_range_by_rank(tree.size(), tree.size() + 3) == 0);
  CHECK(tree.erase_range_by_rank(0, static_cast<std::size_t>(-1)) == 4999);
  CHECK(tree.empty());
  CHECK(tree.memory_bytes() == 0);
  CHECK(tree.check_invariants() == "");
  CHECK_FALSE(tree.pop_min().has_value());
  CHECK_FALSE(tree.pop_max().has_value());
}

TEST_CASE("a moved-from tree is empty and the moved-to tree has its elements", "[zset]") {
  ZsetTree a;
  for (int i = 0; i < 500; ++i) a.insert(std::to_string(i), -i);
  ZsetTree b(std::move(a));
  CHECK(a.size() == 0);  // NOLINT(bugprone-use-after-move): the contract says empty
  CHECK(b.size() == 500);
  CHECK(b.select(0).score == -499);
  CHECK(b.check_invariants() == "");
}
