// ZSCAN's step over a sorted set (ZsetObject::scan, and under it the large
// set's ZsetIndex::scan with its hash cursor): a scan returns every member
// that is there for the whole scan, also while members are added and removed
// between steps and the index grows and shrinks; a listpack answers whole.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kv/detail/zset_index.hpp"
#include "kv/types/zset.hpp"

using duet::kv::Value;
using duet::kv::ZsetLimits;
using duet::kv::ZsetObject;
namespace kv = duet::kv;

namespace {

const ZsetLimits limits{128, 64};

void add(Value& v, const std::string& member, double score) {
  double ignored = 0;
  kv::zset_add(v, member, score, 0, ignored, limits);
}

Value zset_of(const std::vector<std::string>& members) {
  Value v;
  v.set_object(ZsetObject::create(members.size(), 0, limits));
  for (std::size_t i = 0; i < members.size(); ++i) add(v, members[i], static_cast<double>(i % 7));
  return v;
}

std::vector<std::string> names(const std::string& prefix, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// One step: every member visited, with its score checked against the set.
std::uint64_t step(const Value& v, std::uint64_t cursor, std::size_t count, std::map<std::string, int>& seen) {
  const ZsetObject& z = *v.as<ZsetObject>();
  return z.scan(cursor, count, [&](std::string_view m, double s) {
    CHECK(z.score(m) == s);
    ++seen[std::string(m)];
    return true;
  });
}

}  // namespace

TEST_CASE("a listpack's ZSCAN answers every member at once with cursor 0", "[zset][scan]") {
  Value v = zset_of(names("m", 50));
  REQUIRE(v.as<ZsetObject>()->is_listpack());
  std::map<std::string, int> seen;
  CHECK(step(v, 0, 1, seen) == 0);
  CHECK(seen.size() == 50);
  seen.clear();
  CHECK(step(v, 12345, 1, seen) == 0);  // whatever the cursor, as Redis
  CHECK(seen.size() == 50);
}

TEST_CASE("a large set's ZSCAN visits every member exactly once when nothing changes", "[zset][scan]") {
  const std::vector<std::string> members = names("member:", 5000);
  Value v = zset_of(members);
  REQUIRE_FALSE(v.as<ZsetObject>()->is_listpack());
  for (std::size_t count : {1, 10, 100, 100000}) {
    std::map<std::string, int> seen;
    std::uint64_t cursor = 0;
    std::size_t steps = 0;
    do {
      cursor = step(v, cursor, count, seen);
      ++steps;
    } while (cursor != 0 && steps < 1'000'000);
    CHECK(cursor == 0);
    CHECK(seen.size() == members.size());
    for (const auto& [m, n] : seen) CHECK(n == 1);
    if (count == 100000) CHECK(steps == 1);  // a COUNT past the table: one step
    if (count == 1) CHECK(steps > 100);      // a small COUNT: a part a step
  }
}

TEST_CASE("a ZSCAN returns every member present for the whole scan while the set grows, shrinks and resizes",
          "[zset][scan]") {
  std::mt19937_64 rng(28);
  const std::vector<std::string> kept = names("keep:", 3000);
  Value v = zset_of(kept);
  std::set<std::string> ever(kept.begin(), kept.end());
  std::vector<std::string> passing;  // added during the scan, removed later in it
  std::size_t next = 0;
  std::map<std::string, int> seen;
  std::uint64_t cursor = 0;
  std::size_t steps = 0;
  do {
    cursor = step(v, cursor, 200, seen);
    ++steps;
    // Phases of 8 steps: 24,000 members come (the index grows past 4/5 full,
    // by half each time, to 30,000+ slots), then all go (under 1/8 full it
    // shrinks to twice the 3,000 kept).
    if (steps % 16 < 8) {
      for (int i = 0; i < 3000; ++i) {
        passing.push_back("pass:" + std::to_string(next++));
        ever.insert(passing.back());
        add(v, passing.back(), static_cast<double>(rng() % 1000) / 10);
      }
    } else {
      for (const std::string& m : passing) CHECK(kv::zset_remove(v, m));
      passing.clear();
    }
  } while (cursor != 0 && steps < 1'000'000);
  CHECK(cursor == 0);
  CHECK(steps > 16);  // the scan spanned at least one whole grow-and-shrink phase
  for (const std::string& m : kept) CHECK(seen.count(m) == 1);
  for (const auto& [m, n] : seen) CHECK(ever.count(m) == 1);  // nothing that was never there
}

namespace {

// An entry as ZsetTree lays it out ([score][length][bytes]), owned here.
struct OwnedEntry {
  std::unique_ptr<std::uint64_t[]> words;
  explicit OwnedEntry(const std::string& member) : words(new std::uint64_t[3 + member.size() / 8]()) {
    const double score = 1;
    auto* bytes = reinterpret_cast<char*>(words.get());
    std::memcpy(bytes, &score, sizeof score);
    bytes[8] = static_cast<char>(member.size());  // < 255: the one-byte length
    std::memcpy(bytes + 9, member.data(), member.size());
  }
  [[nodiscard]] kv::detail::ZsetEntry* get() const { return reinterpret_cast<kv::detail::ZsetEntry*>(words.get()); }
};

}  // namespace

TEST_CASE("ZsetIndex::scan finds every entry present for the whole scan across growths and shrinks",
          "[zset][scan]") {
  kv::detail::ZsetIndex index;
  std::map<std::string, OwnedEntry> kept;
  for (const std::string& m : names("keep:", 2000)) index.insert(kept.try_emplace(m, m).first->second.get());
  std::map<std::string, OwnedEntry> passing;
  bool grew = false;
  bool shrank = false;
  std::set<std::string> seen;
  std::size_t next = 0;
  std::uint64_t cursor = 0;
  std::size_t steps = 0;
  do {
    cursor = index.scan(cursor, 50, [&](const kv::detail::ZsetEntry* e) { seen.emplace(e->member()); });
    ++steps;
    const std::size_t capacity = index.capacity();
    if (steps % 10 < 5) {
      for (int i = 0; i < 4000; ++i) {
        const std::string m = "pass:" + std::to_string(next++);
        index.insert(passing.try_emplace(m, m).first->second.get());
      }
    } else {
      for (const auto& [m, e] : passing) index.erase(e.get());
      passing.clear();
    }
    grew = grew || index.capacity() > capacity;
    shrank = shrank || index.capacity() < capacity;
  } while (cursor != 0 && steps < 1'000'000);
  CHECK(cursor == 0);
  CHECK(grew);    // the table grew
  CHECK(shrank);  // and shrank under the scan
  for (const auto& [m, e] : kept) CHECK(seen.count(m) == 1);
  index.clear();
}
