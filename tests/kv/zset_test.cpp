// ZsetObject (kv/types/zset.hpp) in both encodings against a plain model:
// std::set of (score, member) for the order and std::map for the scores,
// under seeded random writes through the Value-level functions (zset_add,
// zset_remove, zset_remove_ranks, zset_fit_encoding) with limits small enough
// to convert mid-run and large enough to stay a listpack. Every read is
// checked against a sorted snapshot; then -0.0, ±inf, NUL bytes, long members,
// clone, write_records and memory_usage one by one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kv/types/zset.hpp"
#include "kv/types/zset_family.hpp"
#include "zset_model.hpp"

using duet::kv::Value;
using duet::kv::ZaddResult;
using duet::kv::ZsetLimits;
using duet::kv::ZsetObject;
namespace kv = duet::kv;

namespace {

using zset_model::inf;
using zset_model::Key;
using zset_model::Model;

Value new_zset(std::size_t hint, const ZsetLimits& limits) {
  Value v;
  v.set_object(ZsetObject::create(hint, 0, limits));
  return v;
}

const ZsetObject& zset_of(const Value& v) { return *v.as<ZsetObject>(); }

std::string random_member(std::mt19937_64& rng, std::size_t distinct) {
  const std::size_t n = rng() % distinct;
  if (n % 17 == 0) return std::string("nul\0") + std::to_string(n);  // NUL inside
  if (n % 23 == 0) return std::string(70 + n % 30, 'x') + std::to_string(n);  // past the default value limit
  return "m" + std::to_string(n);
}

// Many ties, both infinities, both zeros, decimals and wide values.
double random_score(std::mt19937_64& rng) {
  switch (rng() % 10) {
    case 0: return rng() % 2 ? inf : -inf;
    case 1: return rng() % 2 ? 0.0 : -0.0;
    case 2: return static_cast<double>(rng() % 100) / 10 + 0.1;
    case 3: return rng() % 2 ? 1e300 : -1e300;
    default: return static_cast<double>(rng() % 20);
  }
}

// Every read of the set against a sorted snapshot of the model.
void check_reads(const ZsetObject& z, const Model& model, std::mt19937_64& rng, std::size_t distinct) {
  const std::vector<Key> sorted(model.order.begin(), model.order.end());
  REQUIRE(z.size() == sorted.size());
  zset_model::check_in_order(z, sorted);
  for (int q = 0; q < 20; ++q) {
    const std::string m = random_member(rng, distinct);
    auto it = model.scores.find(m);
    REQUIRE(z.score(m).has_value() == (it != model.scores.end()));
    if (it != model.scores.end()) {
      REQUIRE(*z.score(m) == it->second);
      REQUIRE(z.rank(m) == zset_model::rank_where(sorted, [&](const Key& k) { return k < Key{it->second, m}; }));
    }
    zset_model::check_score_bounds(z, sorted, random_score(rng));
    if (sorted.empty()) continue;
    const std::size_t r = rng() % sorted.size();
    REQUIRE(Key{z.at(r).score, std::string(z.at(r).member)} == sorted[r]);
    zset_model::check_visit(z, sorted, r, rng() % 40, rng() % 2 == 0);
  }
}

// One random write on both; ZADD's flags as Redis applies them.
void random_write(Value& v, Model& model, std::mt19937_64& rng, std::size_t distinct, const ZsetLimits& limits) {
  const std::string m = random_member(rng, distinct);
  const double s = random_score(rng);
  const int roll = static_cast<int>(rng() % 100);
  const auto found = model.scores.find(m);
  const bool had = found != model.scores.end();
  const double old = had ? found->second : 0;
  if (roll < 55) {
    static constexpr unsigned flag_sets[] = {0, kv::zadd_nx, kv::zadd_xx, kv::zadd_gt, kv::zadd_lt, kv::zadd_incr};
    const unsigned flags = flag_sets[rng() % 6];
    double got = 0;
    const ZaddResult r = kv::zset_add(v, m, s, flags, got, limits);
    const double want = (flags & kv::zadd_incr) != 0 && had ? old + s : s;
    if (std::isnan(want)) {
      REQUIRE(r == ZaddResult::nan);
      return;
    }
    const bool skip = (had && (flags & kv::zadd_nx) != 0) || (!had && (flags & kv::zadd_xx) != 0) ||
                      (had && (flags & kv::zadd_gt) != 0 && !(want > old)) ||
                      (had && (flags & kv::zadd_lt) != 0 && !(want < old));
    if (skip) {
      REQUIRE(r == ZaddResult::unchanged);
    } else if (!had) {
      REQUIRE(r == ZaddResult::added);
      model.insert(m, want);
    } else {
      REQUIRE(r == (want == old ? ZaddResult::same : ZaddResult::updated));
      model.update(m, want);
    }
  } else if (roll < 80) {
    REQUIRE(kv::zset_remove(v, m) == model.erase(m));
  } else if (roll < 88 && !model.order.empty()) {
    const std::size_t start = rng() % model.order.size();
    const std::size_t stop = std::min(model.order.size() - 1, start + rng() % 4);
    const std::size_t removed = kv::zset_remove_ranks(v, start, stop);
    REQUIRE(removed == model.erase_ranks(start, stop));
  } else if (roll < 92) {
    kv::zset_fit_encoding(v, limits);
  } else if (roll < 96) {
    Value copy;
    copy.set_object(zset_of(v).clone());
    REQUIRE(zset_of(copy).is_listpack() == zset_of(v).is_listpack());
    v = std::move(copy);
  }
}

void run_model(std::uint64_t seed, ZsetLimits limits, std::size_t distinct, int ops) {
  CAPTURE(seed, limits.max_entries, limits.max_value);
  std::mt19937_64 rng(seed);
  Value v = new_zset(1, limits);
  Model model;
  bool was_listpack = false;
  bool was_tree = false;
  for (int op = 0; op < ops; ++op) {
    random_write(v, model, rng, distinct, limits);
    const ZsetObject& z = zset_of(v);
    (z.is_listpack() ? was_listpack : was_tree) = true;
    // The encoding Redis would show: a listpack holds at most the limits.
    if (z.is_listpack()) {
      REQUIRE(z.size() <= limits.max_entries);
      for (const Key& k : model.order) REQUIRE(k.second.size() <= limits.max_value);
    }
    REQUIRE(z.memory_usage() > 0);
    if (op % 10 == 0) check_reads(z, model, rng, distinct);
  }
  check_reads(zset_of(v), model, rng, distinct);
  CHECK(was_listpack == (limits.max_entries > 0));
  if (distinct > limits.max_entries) CHECK(was_tree);
}

std::vector<Key> elements(const ZsetObject& z) {
  std::vector<Key> out;
  z.visit(0, z.size(), false, [&](std::string_view m, double s) {
    out.emplace_back(s, std::string(m));
    return true;
  });
  return out;
}

}  // namespace

TEST_CASE("a sorted set matches an ordered model in both encodings and across conversions", "[zset]") {
  run_model(1, ZsetLimits{8, 64}, 30, 3000);     // converts early, NUL and long members
  run_model(2, ZsetLimits{4, 200}, 12, 2000);    // long members fit: conversions by count
  run_model(3, ZsetLimits{128, 64}, 100, 3000);  // stays a listpack until a long member comes
  run_model(4, ZsetLimits{1000, 1000}, 400, 4000);  // a large listpack
  run_model(5, ZsetLimits{0, 0}, 600, 4000);     // always the tree
}

TEST_CASE("lexicographic bounds over equal scores match the members' order in both encodings", "[zset]") {
  std::mt19937_64 rng(7);
  for (ZsetLimits limits : {ZsetLimits{128, 64}, ZsetLimits{0, 0}}) {
    Value v = new_zset(1, limits);
    std::set<std::string> model;
    for (int i = 0; i < 100; ++i) {
      std::string m = random_member(rng, 200);
      double unused = 0;
      kv::zset_add(v, m, 0, 0, unused, limits);
      model.insert(m);
    }
    const ZsetObject& z = zset_of(v);
    const std::vector<std::string> sorted(model.begin(), model.end());
    for (int q = 0; q < 200; ++q) {
      const std::string m = random_member(rng, 220);
      const auto lower = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), m) - sorted.begin());
      const auto upper = static_cast<std::size_t>(std::upper_bound(sorted.begin(), sorted.end(), m) - sorted.begin());
      REQUIRE(z.first_rank_with_member(m, false) == lower);
      REQUIRE(z.first_rank_with_member(m, true) == upper);
      REQUIRE(z.last_rank_with_member(m, false) == (upper == 0 ? std::nullopt : std::optional(upper - 1)));
      REQUIRE(z.last_rank_with_member(m, true) == (lower == 0 ? std::nullopt : std::optional(lower - 1)));
    }
  }
}

TEST_CASE("a listpack keeps -0.0 as 0 and the tree keeps it, as Redis 7.0's encodings", "[zset]") {
  const ZsetLimits small{2, 64};
  Value v = new_zset(1, small);
  double got = 0;
  REQUIRE(kv::zset_add(v, "a", -0.0, 0, got, small) == ZaddResult::added);
  REQUIRE(std::signbit(got));  // ZADD INCR's reply is the computed score
  REQUIRE(zset_of(v).is_listpack());
  REQUIRE_FALSE(std::signbit(*zset_of(v).score("a")));
  REQUIRE(kv::zset_add(v, "a", 0.0, 0, got, small) == ZaddResult::same);
  kv::zset_add(v, "b", 1, 0, got, small);
  kv::zset_add(v, "c", -0.0, 0, got, small);  // the third member converts
  REQUIRE_FALSE(zset_of(v).is_listpack());
  REQUIRE_FALSE(std::signbit(*zset_of(v).score("a")));  // it came from the listpack
  REQUIRE(std::signbit(*zset_of(v).score("c")));
  REQUIRE(zset_of(v).rank("a") == 0);  // -0 == 0: ties by member
  REQUIRE(zset_of(v).rank("c") == 1);
}

TEST_CASE("infinities, NUL bytes and long members keep their order and read back exactly", "[zset]") {
  for (ZsetLimits limits : {ZsetLimits{128, 2000}, ZsetLimits{0, 0}}) {
    Value v = new_zset(1, limits);
    const std::string long_member(1500, 'q');
    const std::vector<Key> want = {{-inf, "lo"}, {-1e300, "x"}, {0.1, std::string("a\0b", 3)},
                                   {0.1, std::string("a\0c", 3)}, {0.1, long_member}, {1e300, ""}, {inf, "hi"}};
    double got = 0;
    for (auto it = want.rbegin(); it != want.rend(); ++it) kv::zset_add(v, it->second, it->first, 0, got, limits);
    REQUIRE(elements(zset_of(v)) == want);
    REQUIRE(kv::zset_add(v, "hi", -inf, kv::zadd_incr, got, limits) == ZaddResult::nan);
    REQUIRE(zset_of(v).score("hi") == inf);
    REQUIRE(zset_of(v).first_rank_with_score(inf, false) == 6);
    REQUIRE(zset_of(v).last_rank_with_score(-inf, false) == 0);
  }
}

TEST_CASE("clone and write_records rebuild the same set, in batches of at most 64 members", "[zset]") {
  for (ZsetLimits limits : {ZsetLimits{128, 64}, ZsetLimits{0, 0}}) {
    std::mt19937_64 rng(11);
    Value v = new_zset(1, limits);
    double got = 0;
    for (int i = 0; i < (limits.max_entries == 0 ? 300 : 100); ++i) {
      kv::zset_add(v, random_member(rng, 1000), random_score(rng), 0, got, limits);
    }
    const ZsetObject& z = zset_of(v);
    Value copy;
    copy.set_object(z.clone());
    REQUIRE(elements(zset_of(copy)) == elements(z));
    REQUIRE(zset_of(copy).encoding() == z.encoding());
    REQUIRE(zset_of(copy).memory_usage() > 0);

    Value replayed = new_zset(1, limits);
    std::size_t records = 0;
    z.write_records("k", [&](std::span<const std::string_view> argv) {
      ++records;
      REQUIRE(argv[0] == "ZADD");
      REQUIRE(argv[1] == "k");
      REQUIRE(argv.size() <= 2 + 2 * ZsetObject::max_record_elements);
      for (std::size_t j = 2; j < argv.size(); j += 2) {
        double s = 0;
        REQUIRE(kv::zset_family::parse_score(argv[j], s));
        kv::zset_add(replayed, argv[j + 1], s, 0, got, limits);
      }
    });
    REQUIRE(records == (z.size() + 63) / 64);
    REQUIRE(elements(zset_of(replayed)) == elements(z));
  }
}
