// The server-wide commands on a sharded keyspace: INFO, CLIENT LIST, CONFIG
// SET, PUBLISH and PUBSUB see and reach every shard, not just the
// connection's own.
#include <catch2/catch.hpp>

#include <string>

#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using kvtest::FakeShards;
using kvtest::resp;
using kvtest::ShardClient;

namespace {

std::string ask(FakeShards& fake, ShardClient& client, const std::string& bytes) {
  client.send(bytes);
  kvtest::settle(fake, {&client});
  return client.take();
}

}  // namespace

TEST_CASE("INFO sums clients, commands and keys over every shard", "[kv][shard]") {
  FakeShards fake(2);
  ShardClient a(fake, 0), b(fake, 1);
  ask(fake, a, resp({"SET", fake.key_on(0), "v"}) + resp({"SET", fake.key_on(1), "v"}) +
                   resp({"SET", fake.key_on(1, "e"), "v", "EX", "100"}));
  ask(fake, b, resp({"SELECT", "2"}) + resp({"SET", fake.key_on(0), "v"}));
  const std::string info = ask(fake, b, resp({"INFO"}));
  CHECK(info.find("connected_clients:2\r\n") != std::string::npos);
  CHECK(info.find("db0:keys=3,expires=1,avg_ttl=0\r\ndb2:keys=1,expires=0,avg_ttl=0\r\n") != std::string::npos);
  CHECK(info.find("total_commands_processed:5\r\n") != std::string::npos);  // the INFO itself is counted after
  const std::string keyspace = ask(fake, a, resp({"INFO", "keyspace"}));
  CHECK(keyspace.find("# Keyspace\r\ndb0:keys=3") != std::string::npos);
}

TEST_CASE("CLIENT LIST lists the clients of every shard by id; ids are unique", "[kv][shard]") {
  FakeShards fake(2);
  ShardClient a(fake, 0), b(fake, 1), c(fake, 0);
  CHECK(ask(fake, a, resp({"CLIENT", "ID"})) == ":1\r\n");
  CHECK(ask(fake, b, resp({"CLIENT", "ID"})) == ":2\r\n");
  CHECK(ask(fake, c, resp({"CLIENT", "ID"})) == ":3\r\n");
  const std::string list = ask(fake, b, resp({"CLIENT", "LIST"}));
  const std::size_t one = list.find("id=1 "), two = list.find("id=2 "), three = list.find("id=3 ");
  CHECK(one != std::string::npos);
  CHECK(two != std::string::npos);
  CHECK(three != std::string::npos);
  CHECK((one < two && two < three));
}

TEST_CASE("CONFIG SET reaches every shard", "[kv][shard]") {
  FakeShards fake(3);
  ShardClient a(fake, 1);
  CHECK(ask(fake, a, resp({"CONFIG", "SET", "maxmemory", "10mb"})) == "+OK\r\n");
  for (std::size_t s = 0; s < 3; ++s) CHECK(fake.cluster.shard(s).state().config().maxmemory == 10u * 1024 * 1024);
  CHECK(ask(fake, a, resp({"CONFIG", "SET", "maxmemory", "lots"})).rfind("-ERR", 0) == 0);
  CHECK(ask(fake, a, resp({"CONFIG", "GET", "maxmemory"})) == "*2\r\n$9\r\nmaxmemory\r\n$8\r\n10485760\r\n");
}

TEST_CASE("PUBLISH reaches subscribers on every shard and counts them all", "[kv][shard]") {
  FakeShards fake(2);
  ShardClient s0(fake, 0), s1(fake, 1), p(fake, 0);
  ask(fake, s0, resp({"SUBSCRIBE", "news"}));
  ask(fake, s1, resp({"SUBSCRIBE", "news"}));
  ask(fake, s1, resp({"PSUBSCRIBE", "n*"}));
  CHECK(ask(fake, p, resp({"PUBLISH", "news", "hi"})) == ":3\r\n");
  for (ShardClient* s : {&s0, &s1}) {
    s->session.collect_pushes();
    s->drain();
  }
  CHECK(s0.take() == "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n");
  CHECK(s1.take() ==
        "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n");
  CHECK(ask(fake, p, resp({"PUBSUB", "NUMSUB", "news", "other"})) ==
        "*4\r\n$4\r\nnews\r\n:2\r\n$5\r\nother\r\n:0\r\n");
  CHECK(ask(fake, p, resp({"PUBSUB", "CHANNELS"})) == "*1\r\n$4\r\nnews\r\n");
}
