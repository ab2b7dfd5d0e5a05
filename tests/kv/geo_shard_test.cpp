// The geo stores over several shards: GEORADIUS's STORE key is named by a
// keyword (Command::written_key), so the command must gather it with its
// source and write it on its own shard, as GEOSEARCHSTORE does its first key.
#include <catch2/catch.hpp>

#include <string>

#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using kvtest::FakeShards;
using kvtest::resp;
using kvtest::ShardClient;

namespace {

std::string run(FakeShards& fake, ShardClient& client, const std::string& bytes) {
  client.send(bytes);
  kvtest::settle(fake, {&client});
  return client.take();
}

bool held_by(FakeShards& fake, std::size_t shard, const std::string& key) {
  return fake.cluster.shard(shard).state().store().db(0).find(key, 0) != nullptr;
}

}  // namespace

TEST_CASE("GEORADIUS STORE writes its key on that key's shard, not the source's", "[kv][shard][geo]") {
  FakeShards fake(2);
  ShardClient client(fake, 0);
  const std::string src = fake.key_on(0, "places");
  const std::string dst = fake.key_on(1, "near");
  const std::string far = fake.key_on(1, "far");
  REQUIRE(run(fake, client, resp({"GEOADD", src, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                                  "Catania"})) == ":2\r\n");
  CHECK(run(fake, client, resp({"GEORADIUS", src, "15", "37", "200", "km", "STORE", dst})) == ":2\r\n");
  CHECK(run(fake, client, resp({"GEORADIUSBYMEMBER", src, "Palermo", "10", "km", "COUNT", "5", "STOREDIST", far})) ==
        ":1\r\n");
  CHECK(held_by(fake, 1, dst));
  CHECK(held_by(fake, 1, far));
  CHECK_FALSE(held_by(fake, 0, dst));
  CHECK(run(fake, client, resp({"GEOHASH", dst, "Palermo", "Catania"})) ==
        "*2\r\n$11\r\nsqc8b49rny0\r\n$11\r\nsqdtr74hyu0\r\n");
  // An empty result deletes the key where it lives.
  CHECK(run(fake, client, resp({"GEORADIUS", src, "0", "0", "1", "km", "STORE", dst})) == ":0\r\n");
  CHECK_FALSE(held_by(fake, 1, dst));
}

TEST_CASE("GEOSEARCHSTORE across shards, inside MULTI too, invalidates a WATCH on its key", "[kv][shard][geo]") {
  FakeShards fake(2);
  ShardClient client(fake, 1);
  ShardClient other(fake, 0);
  const std::string src = fake.key_on(0, "places");
  const std::string dst = fake.key_on(1, "found");
  REQUIRE(run(fake, client, resp({"GEOADD", src, "1", "1", "a", "1.001", "1", "b"})) == ":2\r\n");
  REQUIRE(run(fake, client, resp({"WATCH", dst})) == "+OK\r\n");
  CHECK(run(fake, other, resp({"GEOSEARCHSTORE", dst, src, "FROMMEMBER", "a", "BYRADIUS", "1", "km"})) == ":2\r\n");
  CHECK(held_by(fake, 1, dst));
  CHECK(run(fake, client, resp({"MULTI"}) + resp({"GET", "x"}) + resp({"EXEC"})) ==
        "+OK\r\n+QUEUED\r\n*-1\r\n");  // the store touched the watched key
  CHECK(run(fake, client, resp({"MULTI"}) + resp({"GEORADIUS", src, "1", "1", "1", "km", "STORE", dst}) +
                              resp({"EXEC"})) == "+OK\r\n+QUEUED\r\n*1\r\n:2\r\n");
}
