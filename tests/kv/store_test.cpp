// Keyspace, Store and glob_match on their own.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kv/glob.hpp"
#include "kv/store.hpp"

using duet::kv::as_view;
using duet::kv::Entry;
using duet::kv::glob_match;
using duet::kv::Keyspace;
using duet::kv::Store;
using duet::kv::Value;

TEST_CASE("glob_match follows Redis's stringmatchlen", "[kv][glob]") {
  CHECK(glob_match("*", "abc"));
  CHECK(glob_match("a*c", "abbbc"));
  CHECK_FALSE(glob_match("a*c", "abbbd"));
  CHECK(glob_match("a?c", "abc"));
  CHECK(glob_match("[a-c]x", "bx"));
  CHECK(glob_match("[c-a]x", "bx"));  // reversed range
  CHECK_FALSE(glob_match("[^a-c]x", "bx"));
  CHECK(glob_match("a\\*b", "a*b"));
  CHECK_FALSE(glob_match("a\\*b", "axb"));
  CHECK(glob_match("[abc", "c"));  // unterminated class runs to the end
  CHECK(glob_match("h[\\]]llo", "h]llo"));
  CHECK(glob_match("**a**", "xxaxx"));
  CHECK_FALSE(glob_match("*", ""));  // Redis: an empty subject only matches ""
  CHECK(glob_match("", ""));
  CHECK(glob_match("MaXcLiEnTs", "maxclients", true));
}

TEST_CASE("glob_match stays fast on patterns that blow up backtracking matchers", "[kv][glob]") {
  std::string subject(20000, 'a');
  std::string pattern;
  for (int i = 0; i < 200; ++i) pattern += "*?";
  CHECK_FALSE(glob_match(pattern + "b", subject));
  CHECK(glob_match(pattern + "a", subject));
}

TEST_CASE("prefetching keys, present or not, changes nothing", "[kv][store]") {
  Store store;
  auto& db = store.db(0);
  bool created = false;
  for (int i = 0; i < 1000; ++i) db.upsert("key:" + std::to_string(i), 0, created).value.set_string("v");
  const std::vector<std::string> names = {"key:1", "key:999", "absent", "", "key:1", std::string(300, 'k')};
  std::vector<std::string_view> keys(names.begin(), names.end());
  for (int i = 0; i < 20; ++i) keys.emplace_back(names[0]);  // more than max_prefetch: the rest is ignored
  db.prefetch(keys);
  CHECK(db.size() == 1000);
  REQUIRE(db.find("key:999", 0) != nullptr);
  Value::Scratch scratch;
  CHECK(db.find("key:999", 0)->value.str(scratch) == "v");
  CHECK(db.find("absent", 0) == nullptr);
}

TEST_CASE("entries keep their address while other keys come and go", "[kv][store]") {
  Keyspace db;
  bool created = false;
  Entry& first = db.upsert("first", 0, created);
  CHECK(created);
  first.value.set_string("1");
  for (int i = 0; i < 5000; ++i) db.upsert("k" + std::to_string(i), 0, created);
  for (int i = 0; i < 5000; i += 2) db.erase("k" + std::to_string(i), 0);
  CHECK(db.find("first", 0) == &first);
  Value::Scratch scratch;
  CHECK(first.value.str(scratch) == "1");
  CHECK(db.size() == 2501);
}

TEST_CASE("scan returns each key present throughout exactly once despite churn", "[kv][store]") {
  Keyspace db;
  bool created = false;
  for (int i = 0; i < 2000; ++i) db.upsert("stay" + std::to_string(i), 0, created);
  std::multiset<std::string> seen;
  std::uint64_t cursor = 0;
  int round = 0;
  do {
    cursor = db.scan(cursor, 50, 0, [&](const Entry& e) { seen.emplace(as_view(e.key)); });
    // churn: add and remove other keys between calls
    db.upsert("temp" + std::to_string(round), 0, created);
    if (round > 3) db.erase("temp" + std::to_string(round - 3), 0);
    ++round;
  } while (cursor != 0);
  for (int i = 0; i < 2000; ++i) CHECK(seen.count("stay" + std::to_string(i)) == 1);
}

TEST_CASE("the active expiry cycle removes only expired keys within its budget", "[kv][store]") {
  Store store;
  bool created = false;
  for (int i = 0; i < 100; ++i) {
    Entry& e = store.db(i % 3).upsert("k" + std::to_string(i), 0, created);
    store.db(i % 3).set_expire(e, i < 50 ? 10 : 1000);
  }
  std::size_t removed = 0;
  for (int round = 0; round < 20; ++round) removed += store.active_expire_cycle(11, 10);
  CHECK(removed == 50);
  CHECK(store.db(0).size() + store.db(1).size() + store.db(2).size() == 50);
  CHECK(store.expired_keys() == 50);
}

TEST_CASE("used_memory grows with values and shrinks when they are deleted", "[kv][store]") {
  Store store;
  std::size_t before = store.used_memory();
  bool created = false;
  store.db(0).upsert("key", 0, created).value.set_string(std::string(1 << 20, 'x'));
  CHECK(store.used_memory() >= before + (1 << 20));
  store.db(0).erase("key", 0);
  // The value's megabyte is given back; the emptied database keeps one chunk
  // of slots (about 40 KiB) so that a key popped empty and pushed again
  // does not allocate it afresh.
  CHECK(store.used_memory() <= before + 64 * 1024);
}
