// The set module: IntSet and SetTable against std::set under seeded random
// operations, SetObject's encodings across the thresholds, and the set
// commands through a Session with exact replies for the tricky cases.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kv/types/set.hpp"
#include "kv_test_util.hpp"

using duet::kv::IntSet;
using duet::kv::SetObject;
using duet::kv::SetTable;
using kvtest::SessionFixture;

namespace {

std::vector<std::string> members_of(const SetObject& set) {
  std::vector<std::string> out;
  set.for_each([&](std::string_view m) { out.emplace_back(m); });
  return out;
}

// A member drawn from a few shapes: small and wide integers, inline and heap strings.
std::string random_member(std::mt19937_64& rng, int shapes) {
  switch (rng() % shapes) {
    case 0: return std::to_string(static_cast<int>(rng() % 200) - 100);
    case 1: return std::to_string(static_cast<std::int64_t>(rng() % 50) * 1'000'000'007LL - 25'000'000'000LL);
    case 2: return "m" + std::to_string(rng() % 300);
    default: return "a-member-longer-than-fifteen-bytes:" + std::to_string(rng() % 100);
  }
}

}  // namespace

TEST_CASE("an intset matches a std::set under random inserts and erases and keeps its members sorted", "[set]") {
  std::mt19937_64 rng(25);
  IntSet ints;
  std::set<std::int64_t> model;
  for (int step = 0; step < 5000; ++step) {
    std::int64_t v = static_cast<std::int64_t>(rng() % 64) - 32;
    if (step % 7 == 0) v *= 100000;           // forces 4-byte values
    if (step % 97 == 0) v *= 10000000000LL;   // and 8-byte ones
    if (rng() % 3 == 0) {
      CHECK(ints.erase(v) == (model.erase(v) == 1));
    } else {
      CHECK(ints.insert(v) == model.insert(v).second);
    }
    REQUIRE(ints.size() == model.size());
    CHECK(ints.contains(v) == model.contains(v));
  }
  std::size_t i = 0;
  for (std::int64_t v : model) CHECK(ints.at(i++) == v);
  CHECK(ints.width() == 8);
  CHECK(ints.allocated() == 8 + 8 * ints.size());
}

TEST_CASE("an intset keeps up to seven small integers inside itself and moves to a block beyond", "[set]") {
  IntSet ints;
  for (int v = 7; v >= 1; --v) ints.insert(v * 1000);
  CHECK(ints.allocated() == 0);
  CHECK(ints.at(0) == 1000);
  ints.insert(-1);
  CHECK(ints.allocated() == 8 + 2 * 8);
  ints.erase(-1);
  CHECK(ints.allocated() == 0);
  ints.insert(40000);  // needs 4 bytes: a block even for few values
  CHECK(ints.width() == 4);
  CHECK(ints.allocated() == 8 + 4 * 8);
  ints.erase(40000);
  CHECK(ints.width() == 4);  // never narrower again, as Redis
  IntSet copy = ints.clone();
  CHECK(copy.size() == 7);
  CHECK(copy.at(6) == 7000);
  CHECK(SetObject().memory_usage() == 24);
}

TEST_CASE("a set table matches a std::set while it grows and shrinks", "[set]") {
  std::mt19937_64 rng(7);
  SetTable table;
  std::set<std::string> model;
  for (int step = 0; step < 20000; ++step) {
    const std::string m = random_member(rng, 4);
    const bool erase_phase = (step / 5000) % 2 == 1;  // grow, shrink, grow, shrink
    if (rng() % 4 != 0 ? erase_phase : !erase_phase) {
      CHECK(table.erase(m) == (model.erase(m) == 1));
    } else {
      CHECK(table.insert(m) == model.insert(m).second);
    }
    REQUIRE(table.size() == model.size());
    CHECK(table.contains(m) == model.contains(m));
  }
  std::set<std::string> seen;
  table.for_each([&](std::string_view m) { seen.emplace(m); });
  CHECK(seen == model);
  CHECK(table.capacity() >= 8);
  CHECK(table.size() * 4 <= table.capacity() * 3);
}

TEST_CASE("a set table scan returns every member present throughout even when the table resizes", "[set]") {
  std::mt19937_64 rng(11);
  SetTable table;
  std::set<std::string> stable;
  for (int i = 0; i < 300; ++i) {
    stable.insert("s" + std::to_string(i));
    table.insert("s" + std::to_string(i));
  }
  std::set<std::string> seen;
  std::uint64_t cursor = 0;
  int round = 0;
  do {
    cursor = table.scan(cursor, [&](std::string_view m) { seen.emplace(m); });
    // Between steps other members come and go: the table grows to 4096 and back.
    if (round < 20) {
      for (int i = 0; i < 150; ++i) table.insert("t" + std::to_string(round * 150 + i));
    } else {
      for (int i = 0; i < 3000; ++i) table.erase("t" + std::to_string(i));
    }
    ++round;
  } while (cursor != 0);
  for (const std::string& m : stable) CHECK(seen.contains(m));
}

TEST_CASE("a set table picks each member about equally often", "[set]") {
  SetTable table;
  for (int i = 0; i < 200; ++i) table.insert("x" + std::to_string(i));
  for (int i = 10; i < 200; ++i) table.erase("x" + std::to_string(i));  // ten members left among many slots
  std::mt19937_64 rng(99);
  std::map<std::string, int> picks;
  for (int i = 0; i < 100000; ++i) ++picks[std::string(table.random_member(rng()))];
  REQUIRE(picks.size() == 10);
  for (const auto& [member, n] : picks) CHECK((n > 8500 && n < 11500));
}

TEST_CASE("a set object is an intset of integers up to the limit and a hashtable beyond", "[set]") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 40; ++round) {
    SetObject set;
    std::set<std::string> model;
    const std::int64_t limit = 1 + static_cast<std::int64_t>(rng() % 40);
    bool became_table = false;
    const int shapes = round % 2 == 0 ? 2 : 4;  // half the rounds only integers
    for (int step = 0; step < 200; ++step) {
      const std::string m = random_member(rng, shapes);
      if (rng() % 3 == 0) {
        CHECK(set.remove(m) == (model.erase(m) == 1));
      } else {
        CHECK(set.add(m, limit) == model.insert(m).second);
        if (static_cast<std::int64_t>(model.size()) > limit || shapes == 4 && m[0] == 'm') became_table = true;
      }
      became_table = became_table || !set.is_intset();
      REQUIRE(set.size() == model.size());
      CHECK(set.is_intset() == !became_table);  // never converts back
      CHECK(set.contains(m) == model.contains(m));
    }
    auto members = members_of(set);
    CHECK(std::set<std::string>(members.begin(), members.end()) == model);
    CHECK(set.memory_usage() >= sizeof(SetObject));
    auto copy = set.clone();
    CHECK(copy->encoding() == set.encoding());
    auto copied = members_of(static_cast<SetObject&>(*copy));
    CHECK(std::set<std::string>(copied.begin(), copied.end()) == model);
  }
}

TEST_CASE("an intset's members are visited in ascending order and picked at random among them", "[set]") {
  SetObject set;
  for (const char* m : {"5", "-3", "100000", "7", "-9223372036854775808"}) set.add(m, 512);
  CHECK(members_of(set) == std::vector<std::string>{"-9223372036854775808", "-3", "5", "7", "100000"});
  CHECK(!set.add("05", 512) == false);  // "05" is not canonical: the set becomes a hashtable
  CHECK(set.encoding() == "hashtable");
  CHECK(set.contains("5"));
  CHECK(set.contains("05"));
  SetObject::Scratch scratch;
  for (std::uint64_t bits = 0; bits < 50; ++bits) CHECK(set.contains(set.random_member(bits * 0x9E3779B97F4A7C15ull, scratch)));
}

TEST_CASE("write_records rebuilds a set in SADD commands of at most 64 members", "[set]") {
  SetObject set;
  for (int i = 0; i < 150; ++i) set.add(std::to_string(i), 512);
  std::vector<std::size_t> sizes;
  std::set<std::string> rebuilt;
  set.write_records("k", [&](std::span<const std::string_view> argv) {
    CHECK(argv[0] == "SADD");
    CHECK(argv[1] == "k");
    sizes.push_back(argv.size() - 2);
    for (std::size_t j = 2; j < argv.size(); ++j) rebuilt.emplace(argv[j]);
  });
  CHECK(sizes == std::vector<std::size_t>{64, 64, 22});
  CHECK(rebuilt.size() == 150);
}

TEST_CASE("SADD SMEMBERS and OBJECT ENCODING follow Redis's intset rules", "[set]") {
  SessionFixture f;
  CHECK(f.cmd({"SADD", "s", "3", "1", "2", "1"}) == ":3\r\n");
  CHECK(f.cmd({"SMEMBERS", "s"}) == "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
  CHECK(f.cmd({"OBJECT", "ENCODING", "s"}) == "$6\r\nintset\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "set-max-intset-entries", "3"}) == "+OK\r\n");
  CHECK(f.cmd({"SADD", "s", "4"}) == ":1\r\n");
  CHECK(f.cmd({"OBJECT", "ENCODING", "s"}) == "$9\r\nhashtable\r\n");
  CHECK(f.cmd({"SREM", "s", "4", "3", "2"}) == ":3\r\n");
  CHECK(f.cmd({"OBJECT", "ENCODING", "s"}) == "$9\r\nhashtable\r\n");
  CHECK(f.cmd({"SREM", "s", "1", "9"}) == ":1\r\n");
  CHECK(f.cmd({"EXISTS", "s"}) == ":0\r\n");
  CHECK(f.cmd({"SET", "str", "x"}) == "+OK\r\n");
  CHECK(f.cmd({"SADD", "str", "1"}).starts_with("-WRONGTYPE"));
}

TEST_CASE("SPOP of the whole set deletes the key and a partial SPOP removes what it returns", "[set]") {
  SessionFixture f;
  f.cmd({"SADD", "s", "1", "2", "3"});
  CHECK(f.cmd({"SPOP", "s", "3"}) == "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
  CHECK(f.cmd({"EXISTS", "s"}) == ":0\r\n");
  CHECK(f.cmd({"SPOP", "s", "-1"}) == "-ERR value is out of range, must be positive\r\n");
  CHECK(f.cmd({"SPOP", "nokey", "5"}) == "*0\r\n");
  CHECK(f.cmd({"SPOP", "nokey"}) == "$-1\r\n");
  for (int count : {1, 3, 15, 19}) {  // both of Redis's strategies
    std::vector<std::string> add = {"SADD", "p"};
    for (int i = 0; i < 20; ++i) add.push_back("m" + std::to_string(i));
    kvtest::talk(f.session, kvtest::resp(add));
    std::string reply = f.cmd({"SPOP", "p", std::to_string(count)});
    CHECK(reply.starts_with("*" + std::to_string(count) + "\r\n"));
    CHECK(f.cmd({"SCARD", "p"}) == ":" + std::to_string(20 - count) + "\r\n");
    for (int i = 0; i < 20; ++i) {
      const std::string m = "m" + std::to_string(i);
      const bool popped = reply.find("$" + std::to_string(m.size()) + "\r\n" + m + "\r\n") != std::string::npos;
      CHECK(f.cmd({"SISMEMBER", "p", m}) == (popped ? ":0\r\n" : ":1\r\n"));
    }
    f.cmd({"DEL", "p"});
  }
}

TEST_CASE("SRANDMEMBER gives distinct members for a positive count and repeats for a negative one", "[set]") {
  SessionFixture f;
  f.cmd({"SADD", "s", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"});
  for (const char* count : {"2", "5", "9"}) {
    std::string reply = f.cmd({"SRANDMEMBER", "s", count});
    CHECK(reply.starts_with(std::string("*") + count + "\r\n"));
    std::set<std::string> distinct;
    for (std::size_t at = reply.find("$1\r\n"); at != std::string::npos; at = reply.find("$1\r\n", at + 1)) {
      distinct.insert(reply.substr(at + 4, 1));
    }
    CHECK(distinct.size() == static_cast<std::size_t>(std::stoi(count)));
  }
  CHECK(f.cmd({"SRANDMEMBER", "s", "-30"}).starts_with("*30\r\n"));
  CHECK(f.cmd({"SRANDMEMBER", "s", "100"}).starts_with("*10\r\n"));
  CHECK(f.cmd({"SRANDMEMBER", "nokey", "-2147483648"}) == "*0\r\n");
  CHECK(f.cmd({"SRANDMEMBER", "s", "-9223372036854775808"}) ==
        "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n");
  CHECK(f.cmd({"SRANDMEMBER", "s", "-9223372036854775807"}) == "-ERR value is out of range\r\n");
}

TEST_CASE("SSCAN returns an intset whole with cursor 0 and walks a hashtable to the end", "[set]") {
  SessionFixture f;
  f.cmd({"SADD", "i", "3", "1", "2"});
  CHECK(f.cmd({"SSCAN", "i", "0", "COUNT", "1"}) == "*2\r\n$1\r\n0\r\n*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
  CHECK(f.cmd({"SSCAN", "i", "0", "MATCH", "[12]"}) == "*2\r\n$1\r\n0\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"SSCAN", "nokey", "0", "COUNT", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.cmd({"SSCAN", "i", "0", "COUNT", "0"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SSCAN", "i", "x"}) == "-ERR invalid cursor\r\n");
  std::vector<std::string> add = {"SADD", "h"};
  for (int i = 0; i < 500; ++i) add.push_back("k" + std::to_string(i));
  kvtest::talk(f.session, kvtest::resp(add));
  std::string cursor = "0";
  std::size_t members = 0;
  int calls = 0;
  do {
    std::string reply = f.cmd({"SSCAN", "h", cursor, "COUNT", "20"});
    std::size_t len_at = reply.find('$') + 1;
    std::size_t len_end = reply.find('\r', len_at);
    std::size_t n = std::stoul(reply.substr(len_at, len_end - len_at));
    cursor = reply.substr(len_end + 2, n);
    for (std::size_t at = reply.find("$", len_end); at != std::string::npos; at = reply.find("\r\n$", at + 1)) ++members;
    ++calls;
  } while (cursor != "0");
  CHECK(members >= 500);
  CHECK(calls > 5);
}

TEST_CASE("the set algebra answers as Redis including empty and missing keys", "[set]") {
  SessionFixture f;
  f.cmd({"SADD", "a", "1", "2", "3", "4"});
  f.cmd({"SADD", "b", "3", "4", "5"});
  CHECK(f.cmd({"SINTER", "a", "b"}) == "*2\r\n$1\r\n3\r\n$1\r\n4\r\n");
  CHECK(f.cmd({"SINTER", "a", "nokey"}) == "*0\r\n");
  CHECK(f.cmd({"SUNION", "a", "b", "nokey"}) == "*5\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n$1\r\n5\r\n");
  CHECK(f.cmd({"SDIFF", "a", "b"}) == "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"SDIFF", "a", "a"}) == "*0\r\n");
  CHECK(f.cmd({"SINTERCARD", "2", "a", "b"}) == ":2\r\n");
  CHECK(f.cmd({"SINTERCARD", "2", "a", "b", "LIMIT", "1"}) == ":1\r\n");
  CHECK(f.cmd({"SINTERCARD", "0", "a"}) == "-ERR numkeys should be greater than 0\r\n");
  CHECK(f.cmd({"SINTERCARD", "3", "a", "b"}) == "-ERR Number of keys can't be greater than number of args\r\n");
  CHECK(f.cmd({"SINTERCARD", "1", "a", "LIMIT", "-1"}) == "-ERR LIMIT can't be negative\r\n");
  CHECK(f.cmd({"SETEX", "d", "100", "x"}) == "+OK\r\n");
  CHECK(f.cmd({"SINTERSTORE", "d", "a", "b"}) == ":2\r\n");
  CHECK(f.cmd({"TTL", "d"}) == ":-1\r\n");
  CHECK(f.cmd({"SDIFFSTORE", "d", "b", "a", "b"}) == ":0\r\n");
  CHECK(f.cmd({"EXISTS", "d"}) == ":0\r\n");
  CHECK(f.cmd({"SUNIONSTORE", "a", "a", "b"}) == ":5\r\n");
  CHECK(f.cmd({"SMOVE", "a", "b", "1"}) == ":1\r\n");
  CHECK(f.cmd({"SMOVE", "a", "b", "1"}) == ":0\r\n");
  CHECK(f.cmd({"SMOVE", "nokey", "b", "1"}) == ":0\r\n");
  CHECK(f.cmd({"SMISMEMBER", "b", "1", "9"}) == "*2\r\n:1\r\n:0\r\n");
}
