// The hash module: its encodings against a plain model under random
// operations, and the hash commands through Session with exact reply bytes.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kv/detail/counting_allocator.hpp"
#include "kv/types/compact_table.hpp"
#include "kv/types/hash.hpp"
#include "kv_test_util.hpp"

using duet::kv::CompactTable;
using duet::kv::HashLimits;
using duet::kv::HashObject;
using duet::kv::Value;

namespace {

std::int64_t counted() { return duet::kv::detail::t_counted_bytes; }

std::map<std::string, std::string> contents(const HashObject& h) {
  std::map<std::string, std::string> out;
  h.for_each([&](HashObject::Record r) { out.emplace(std::string(r.key), std::string(r.value)); });
  return out;
}

std::string random_text(std::mt19937_64& rng, std::size_t max_len) {
  std::string s(rng() % (max_len + 1), 'x');
  for (char& c : s) c = static_cast<char>('a' + rng() % 4);
  return s;
}

// Every bulk string of a reply, in order, nested arrays flattened.
std::vector<std::string> bulks(const std::string& reply) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < reply.size()) {
    const std::size_t eol = reply.find("\r\n", pos);
    if (reply[pos] != '$') {
      pos = eol + 2;
      continue;
    }
    const std::size_t n = std::stoul(reply.substr(pos + 1, eol - pos - 1));
    out.push_back(reply.substr(eol + 2, n));
    pos = eol + 2 + n + 2;
  }
  return out;
}

// HSET h f0 v f1 v ... of n fields.
void fill(kvtest::SessionFixture& f, int n) {
  std::vector<std::string> args{"HSET", "h"};
  for (int i = 0; i < n; ++i) args.insert(args.end(), {"f" + std::to_string(i), "v"});
  CHECK(kvtest::talk(f.session, kvtest::resp(args)) == ":" + std::to_string(n) + "\r\n");
}

}  // namespace

TEST_CASE("a hash matches a std::map under random writes, crossing both thresholds", "[hash]") {
  const std::int64_t before = counted();
  {
    std::mt19937_64 rng(25);
    const HashLimits limits{16, 8};
    Value v;
    v.set_object(HashObject::create());
    std::map<std::string, std::string> model;
    bool was_table = false;
    for (int i = 0; i < 6000; ++i) {
      const std::string field = "f" + std::to_string(rng() % 40);
      if (rng() % 3 == 0) {
        CHECK(duet::kv::hash_erase(v, field) == (model.erase(field) == 1));
      } else {
        const std::string value = random_text(rng, rng() % 50 == 0 ? 12 : 6);
        CHECK(duet::kv::hash_set(v, field, value, limits) == model.insert_or_assign(field, value).second);
      }
      const auto* h = v.as<HashObject>();
      REQUIRE(h->size() == model.size());
      // One way, as Redis: a hashtable never goes back to a listpack.
      if (was_table) REQUIRE(h->encoding() == "hashtable");
      was_table = h->encoding() == "hashtable";
      if (model.size() > limits.max_entries) REQUIRE(was_table);
      if (i % 100 == 0) REQUIRE(contents(*h) == model);
      if (model.empty() && was_table) {  // start over to cross the thresholds again
        v.set_object(HashObject::create());
        was_table = false;
      }
    }
  }
  CHECK(counted() == before);  // every byte counted is given back
}

TEST_CASE("a listpack hash keeps insertion order and converts past its limits", "[hash]") {
  const HashLimits limits{3, 4};
  Value v;
  v.set_object(HashObject::create());
  duet::kv::hash_set(v, "b", "1", limits);
  duet::kv::hash_set(v, "a", "2", limits);
  duet::kv::hash_set(v, "b", "333", limits);  // a longer value keeps its place
  std::vector<std::string> order;
  v.as<HashObject>()->for_each([&](HashObject::Record r) { order.emplace_back(r.key); });
  CHECK(order == std::vector<std::string>{"b", "a"});
  CHECK(v.encoding() == "listpack");
  duet::kv::hash_set(v, "c", "12345", limits);  // a value past max_value
  CHECK(v.encoding() == "hashtable");
  CHECK(v.as<HashObject>()->find("b") == std::optional<std::string_view>("333"));
}

TEST_CASE("a listpack hash of 5 small fields is 32 bytes, and each encoding frees what it counted", "[hash]") {
  const std::int64_t before = counted();
  {
    Value v;
    v.set_object(HashObject::create());
    const HashLimits limits{5, 64};
    for (int i = 1; i <= 5; ++i) duet::kv::hash_set(v, "f" + std::to_string(i), "v" + std::to_string(i), limits);
    // The 1-byte object header, the payload's length, 5 x (1 + 2 + 1 + 2).
    CHECK(v.allocated() == 32);
    CHECK(counted() - before == 32);
    Value copy = v.clone();
    CHECK(copy.allocated() == 32);
    duet::kv::hash_set(v, "f6", "v6", limits);  // past max_entries: a table
    CHECK(v.encoding() == "hashtable");
    CHECK(counted() - before == static_cast<std::int64_t>(v.allocated() + copy.allocated()));
    Value table_copy = v.clone();
    CHECK(table_copy.encoding() == "hashtable");
    CHECK(contents(*table_copy.as<HashObject>()) == contents(*v.as<HashObject>()));
  }
  CHECK(counted() == before);
}

TEST_CASE("a compact table scan visits every record present throughout exactly once across resizes", "[hash]") {
  CompactTable t;
  for (int i = 0; i < 2000; ++i) t.assign("k" + std::to_string(i), "v");
  std::multiset<std::string> seen;
  std::uint64_t cursor = 0;
  int step = 0;
  do {
    cursor = t.scan(cursor, 7, [&](CompactTable::Record r) { seen.emplace(r.key); });
    // Grow and shrink the table under the scan: records >= 1000 come and go.
    if (++step % 3 == 0) {
      for (int i = 2000; i < 6000; ++i) t.assign("k" + std::to_string(i), "v");
    } else if (step % 3 == 1) {
      for (int i = 1000; i < 6000; ++i) t.erase("k" + std::to_string(i));
    }
  } while (cursor != 0);
  for (int i = 0; i < 1000; ++i) CHECK(seen.count("k" + std::to_string(i)) == 1);
}

TEST_CASE("a compact table matches a std::map through growing and shrinking, and counts its memory exactly", "[hash]") {
  const std::int64_t before = counted();
  {
    std::mt19937_64 rng(7);
    CompactTable t;
    std::map<std::string, std::string> model;
    for (int i = 0; i < 40000; ++i) {
      const std::string key = "k" + std::to_string(rng() % (i < 20000 ? 5000 : 300));  // then shrink back
      if (rng() % 2 == 0) {
        CHECK(t.erase(key) == (model.erase(key) == 1));
      } else {
        const std::string value = random_text(rng, 20);
        CHECK(t.assign(key, value) == model.insert_or_assign(key, value).second);
      }
      REQUIRE(t.size() == model.size());
      REQUIRE(counted() - before == static_cast<std::int64_t>(t.memory_usage()));
    }
    std::map<std::string, std::string> seen;
    t.for_each([&](CompactTable::Record r) { seen.emplace(std::string(r.key), std::string(r.value)); });
    CHECK(seen == model);
    for (const auto& [key, value] : model) CHECK(t.find(key)->value == value);
    CHECK_FALSE(t.find("absent").has_value());
    if (t.size() != 0) CHECK(model.count(std::string(t.random(rng()).key)) == 1);
  }
  CHECK(counted() == before);
}

TEST_CASE("hscan over a hashtable returns every field once and ends with cursor 0", "[hash]") {
  kvtest::SessionFixture f;
  fill(f, 1000);
  CHECK(f.cmd({"OBJECT", "ENCODING", "h"}) == "$9\r\nhashtable\r\n");
  std::multiset<std::string> fields;
  std::string cursor = "0";
  int calls = 0;
  do {
    const std::vector<std::string> reply = bulks(f.cmd({"HSCAN", "h", cursor, "COUNT", "20"}));
    cursor = reply.at(0);
    for (std::size_t j = 1; j < reply.size(); j += 2) fields.insert(reply[j]);
    ++calls;
  } while (cursor != "0");
  CHECK(calls > 10);
  CHECK(fields.size() == 1000);
  CHECK(std::set<std::string>(fields.begin(), fields.end()).size() == 1000);
}

TEST_CASE("a hash writes itself as HSET records of at most 64 pairs", "[hash]") {
  Value v;
  v.set_object(HashObject::create());
  for (int i = 0; i < 130; ++i) duet::kv::hash_set(v, "f" + std::to_string(i), "v", HashLimits{});
  std::vector<std::size_t> sizes;
  v.as<HashObject>()->write_records("k", [&](std::span<const std::string_view> argv) {
    CHECK(argv[0] == "HSET");
    sizes.push_back(argv.size());
  });
  CHECK(sizes == std::vector<std::size_t>{130, 130, 6});
  Value copy = v.clone();
  CHECK(contents(*copy.as<HashObject>()) == contents(*v.as<HashObject>()));
}

TEST_CASE("hash commands reply as Redis does", "[hash]") {
  kvtest::SessionFixture f;
  CHECK(f.cmd({"HSET", "h", "a", "1", "b", "2"}) == ":2\r\n");
  CHECK(f.cmd({"HSET", "h", "a", "1", "b"}) == "-ERR wrong number of arguments for 'hset' command\r\n");
  CHECK(f.cmd({"HGETALL", "h"}) == "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"HMGET", "h", "a", "zz"}) == "*2\r\n$1\r\n1\r\n$-1\r\n");
  CHECK(f.cmd({"HINCRBY", "h", "a", "9223372036854775807"}) == "-ERR increment or decrement would overflow\r\n");
  CHECK(f.cmd({"HINCRBYFLOAT", "h", "a", "0.5"}) == "$3\r\n1.5\r\n");
  CHECK(f.cmd({"HINCRBY", "h", "a", "1"}) == "-ERR hash value is not an integer\r\n");
  CHECK(f.cmd({"HINCRBYFLOAT", "h", "b", "inf"}) == "-ERR value is NaN or Infinity\r\n");
  CHECK(f.cmd({"HSCAN", "h", "0", "MATCH", "b*"}) == "*2\r\n$1\r\n0\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"HSCAN", "nokey", "0", "COUNT", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.cmd({"HRANDFIELD", "h", "-5"}).substr(0, 4) == "*5\r\n");
  CHECK(f.cmd({"HRANDFIELD", "h", "5", "WITHVALUES"}) == "*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"HRANDFIELD", "h", "-9223372036854775808"}) ==
        "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n");
  CHECK(f.cmd({"HDEL", "h", "a", "b", "c"}) == ":2\r\n");
  CHECK(f.cmd({"EXISTS", "h"}) == ":0\r\n");
  CHECK(f.cmd({"SET", "s", "x"}) == "+OK\r\n");
  CHECK(f.cmd({"HGET", "s", "a"}) == "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
}

TEST_CASE("hrandfield picks distinct fields of the hash when the count is positive", "[hash]") {
  kvtest::SessionFixture f;
  fill(f, 100);
  for (const char* count : {"10", "50", "99"}) {
    const std::vector<std::string> reply = bulks(f.cmd({"HRANDFIELD", "h", count}));
    const std::set<std::string> fields(reply.begin(), reply.end());
    CHECK(fields.size() == static_cast<std::size_t>(std::stoi(count)));
  }
}
