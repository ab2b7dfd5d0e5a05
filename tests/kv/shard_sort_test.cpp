// SORT on a sharded keyspace (--threads N): the patterns that name other
// keys are refused with Redis Cluster's errors, everything else works, and a
// STORE whose destination lives on another shard is one atomic step. The
// differential test (tests/kv/differential/sort.py) compares the rest with
// redis-server; it cannot show the refusal, which redis-server never gives.
#include <catch2/catch.hpp>

#include <string>

#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using kvtest::FakeShards;
using kvtest::resp;
using kvtest::settled_reply;
using kvtest::ShardClient;

namespace {

const std::string by_refused = "-ERR BY option of SORT denied in Cluster mode.\r\n";
const std::string get_refused = "-ERR GET option of SORT denied in Cluster mode.\r\n";

}  // namespace

TEST_CASE("with several shards SORT refuses BY and GET patterns as Redis Cluster does", "[kv][shard][sort]") {
  FakeShards fake(2);
  ShardClient a(fake, 0);
  const std::string l = fake.key_on(0, "l");
  settled_reply(fake, a, resp({"RPUSH", l, "3", "1", "2"}) + resp({"SET", "w_1", "9"}));
  CHECK(settled_reply(fake, a, resp({"SORT", l, "BY", "w_*"})) == by_refused);
  // Refused where the option stands: before the syntax error that follows.
  CHECK(settled_reply(fake, a, resp({"SORT_RO", l, "BY", "w_*->f", "STORE"})) == by_refused);
  CHECK(settled_reply(fake, a, resp({"SORT", l, "GET", "w_*"})) == get_refused);
  CHECK(settled_reply(fake, a, resp({"SORT", l, "GET", "#"})) == get_refused);  // 7.0 refuses every GET
  CHECK(settled_reply(fake, a, resp({"SORT", l, "BY", "nosort", "GET", "w_*"})) == get_refused);
  CHECK(settled_reply(fake, a, resp({"SORT", l, "LIMIT", "x", "1", "GET", "#"})) ==
        "-ERR value is not an integer or out of range\r\n");  // options are read in order
  CHECK(settled_reply(fake, a, resp({"SORT", fake.key_on(1, "s"), "BY", "w_*", "STORE", l})) == by_refused);
  CHECK(settled_reply(fake, a, resp({"LRANGE", l, "0", "-1"})) == "*3\r\n$1\r\n3\r\n$1\r\n1\r\n$1\r\n2\r\n");
  // A BY without '*' names no key: it does not sort, sharded or not.
  CHECK(settled_reply(fake, a, resp({"SORT", l, "BY", "nosort", "DESC"})) == "*3\r\n$1\r\n2\r\n$1\r\n1\r\n$1\r\n3\r\n");
  CHECK(settled_reply(fake, a, resp({"SORT", l, "LIMIT", "1", "5"})) == "*2\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_CASE("with one shard SORT's BY and GET patterns read the keys they name", "[kv][shard][sort]") {
  FakeShards fake(1);
  ShardClient a(fake, 0);
  settled_reply(fake, a, resp({"RPUSH", "l", "1", "2"}) + resp({"MSET", "w_1", "20", "w_2", "10"}) +
                   resp({"HSET", "h_1", "f", "one"}));
  CHECK(settled_reply(fake, a, resp({"SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->f"})) ==
        "*4\r\n$1\r\n2\r\n$-1\r\n$1\r\n1\r\n$3\r\none\r\n");
}

TEST_CASE("SORT ... STORE to a destination on another shard replaces it in one step", "[kv][shard][sort]") {
  FakeShards fake(2, GENERATE(1u, 2u, 3u, 4u));
  ShardClient a(fake, 0), b(fake, 1);
  const std::string src = fake.key_on(0, "src");
  const std::string dst = fake.key_on(1, "dst");
  settled_reply(fake, a, resp({"RPUSH", src, "b", "c", "a"}) + resp({"SET", dst, "old", "EX", "100"}));
  // Another client reads the destination while the STORE runs: it sees the
  // old string or the whole new list, never anything between.
  a.send(resp({"SORT", src, "ALPHA", "DESC", "STORE", dst}));
  b.send(resp({"LRANGE", dst, "0", "-1"}));
  kvtest::settle(fake, {&a, &b});
  CHECK(a.take() == ":3\r\n");
  const std::string seen = b.take();
  CHECK((seen.rfind("-WRONGTYPE", 0) == 0 || seen == "*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n"));
  CHECK(settled_reply(fake, b, resp({"LRANGE", dst, "0", "-1"})) == "*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n");
  CHECK(settled_reply(fake, b, resp({"TTL", dst})) == ":-1\r\n");
  // An empty result deletes the destination, wherever it lives.
  CHECK(settled_reply(fake, a, resp({"SORT", fake.key_on(0, "none"), "STORE", dst})) == ":0\r\n");
  CHECK(settled_reply(fake, b, resp({"EXISTS", dst})) == ":0\r\n");
}

TEST_CASE("COMMAND reports SORT's and SORT_RO's keys as movable", "[kv][sort]") {
  FakeShards fake(1);
  ShardClient a(fake, 0);
  CHECK(settled_reply(fake, a, resp({"COMMAND", "INFO", "sort"})).find("+movablekeys\r\n") != std::string::npos);
  CHECK(settled_reply(fake, a, resp({"COMMAND", "INFO", "sort_ro"})).find("+movablekeys\r\n") != std::string::npos);
}
