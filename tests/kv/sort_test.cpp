// SORT over a sorted set (by rank when it does not sort, LIMIT read as a
// rank range, converted to the large encoding as Redis converts it), and the
// sorting vector's rules: strtod's weights, ties, ALPHA as C strings or bytes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kv/sort_vector.hpp"
#include "kv/types/zset.hpp"
#include "kv_test_util.hpp"

using namespace duet::kv;
using kvtest::SessionFixture;

namespace {

// A sorted set at `key` built without ZADD: member i has score scores[i].
void put_zset(SessionFixture& f, std::string_view key, const std::vector<std::pair<std::string, double>>& members) {
  const ZsetLimits limits = ZsetLimits::from(f.state.config());
  bool created = false;
  Entry& e = f.state.store().db(0).upsert(key, f.now, created);
  e.value.set_object(ZsetObject::create(members.size(), 0, limits));
  for (const auto& [member, score] : members) {
    double unused = 0;
    REQUIRE(zset_add(e.value, member, score, 0, unused, limits) == ZaddResult::added);
  }
}

std::string bulks(std::initializer_list<std::string_view> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (std::string_view s : items) out += "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
  return out;
}

std::vector<std::string> sorted(std::initializer_list<std::string_view> elements, SortOrder order, bool& ok) {
  SessionFixture f;
  ClientInfo client;
  std::string out;
  std::vector<std::string_view> argv{"sort"};
  CommandContext ctx{f.state, client, argv, Reply(out), f.now};
  SortVector v;
  for (std::string_view e : elements) v.add(e);
  ok = v.weigh(ctx, nullptr, order.alpha);
  v.sort(order);
  std::vector<std::string> result;
  for (std::size_t i = 0; i < v.size(); ++i) result.emplace_back(v.element(i));
  return result;
}

}  // namespace

TEST_CASE("SORT of a sorted set without sorting keeps rank order and reads LIMIT as a rank range", "[kv][sort]") {
  SessionFixture f;
  put_zset(f, "z", {{"c", 1}, {"a", 2}, {"b", 3}, {"d", 3}});
  CHECK(f.cmd({"OBJECT", "ENCODING", "z"}) == "$8\r\nlistpack\r\n");
  CHECK(f.cmd({"SORT", "z", "BY", "nosort"}) == bulks({"c", "a", "b", "d"}));
  CHECK(f.cmd({"OBJECT", "ENCODING", "z"}) == "$8\r\nskiplist\r\n");  // as Redis's zsetConvert
  CHECK(f.cmd({"SORT", "z", "BY", "nosort", "DESC"}) == bulks({"d", "b", "a", "c"}));
  CHECK(f.cmd({"SORT", "z", "BY", "nosort", "LIMIT", "1", "2"}) == bulks({"a", "b"}));
  CHECK(f.cmd({"SORT", "z", "BY", "nosort", "LIMIT", "1", "2", "DESC"}) == bulks({"b", "a"}));
  CHECK(f.cmd({"SORT", "z", "BY", "nosort", "LIMIT", "3", "100", "DESC"}) == bulks({"c"}));
  CHECK(f.cmd({"SORT", "z", "BY", "nosort", "LIMIT", "4", "1"}) == "*0\r\n");
  CHECK(f.cmd({"SORT", "z", "ALPHA", "DESC"}) == bulks({"d", "c", "b", "a"}));
  CHECK(f.cmd({"SORT", "z"}) == "-ERR One or more scores can't be converted into double\r\n");
  CHECK(f.cmd({"SORT", "z", "BY", "nosort", "STORE", "l"}) == ":4\r\n");  // a sorted set keeps its order
  CHECK(f.cmd({"LRANGE", "l", "0", "-1"}) == bulks({"c", "a", "b", "d"}));
}

TEST_CASE("SORT of a sorted set sorts its members, not its scores", "[kv][sort]") {
  SessionFixture f;
  put_zset(f, "n", {{"10", 3}, {"9", 2}, {"-1", 1}});
  CHECK(f.cmd({"SORT", "n"}) == bulks({"-1", "9", "10"}));
  CHECK(f.cmd({"SORT", "n", "ALPHA", "LIMIT", "0", "2"}) == bulks({"-1", "10"}));
  CHECK(f.cmd({"SORT", "n", "BY", "nosort", "GET", "#"}) == bulks({"-1", "9", "10"}));
}

TEST_CASE("numeric weights are strtod's, whole, and ties go by the element's bytes", "[kv][sort]") {
  bool ok = false;
  CHECK(sorted({"1e2", "0x10", " 7", "", "-inf", "1.0", "1", "+1"}, {}, ok) ==
        std::vector<std::string>{"-inf", "", "+1", "1", "1.0", " 7", "0x10", "1e2"});
  CHECK(ok);
  for (std::string_view bad : {"5 ", "nan", "1e999", "1e-400", "x", "  "}) {
    sorted({"1", bad}, {}, ok);
    CHECK_FALSE(ok);
  }
  sorted({std::string_view("5\0x", 3)}, {}, ok);  // a NUL ends the C string strtod reads
  CHECK(ok);
}

TEST_CASE("ALPHA compares C strings without STORE, bytes with it; equal ones keep their order", "[kv][sort]") {
  bool ok = false;
  const std::string_view ab("a\0b", 3), aa("a\0a", 3);
  CHECK(sorted({ab, "b", "a", aa}, {.alpha = true}, ok) ==
        std::vector<std::string>{std::string(ab), "a", std::string(aa), "b"});
  CHECK(sorted({ab, "b", "a", aa}, {.alpha = true, .binary = true}, ok) ==
        std::vector<std::string>{"a", std::string(aa), std::string(ab), "b"});
  CHECK(sorted({ab, "b", "a", aa}, {.desc = true, .alpha = true}, ok) ==
        std::vector<std::string>{"b", std::string(ab), "a", std::string(aa)});
}
