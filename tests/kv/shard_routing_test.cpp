// The sharded keyspace (kv/shard) through Session: a connection's replies are
// byte for byte what one shard would answer, in request order, whichever
// shard owns each key and however the shards' messages interleave.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "kv/server_state.hpp"
#include "kv/session.hpp"
#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using kvtest::FakeShards;
using kvtest::resp;
using kvtest::ShardClient;

namespace {

// A random script over 12 keys: single-key commands, commands over several
// keys, SELECT and the odd error, all with deterministic replies.
std::vector<std::string> random_script(std::mt19937_64& rng, std::size_t count) {
  auto key = [&] { return "key:" + std::to_string(rng() % 12); };
  auto num = [&] { return std::to_string(rng() % 100); };
  std::vector<std::string> script;
  for (std::size_t i = 0; i < count; ++i) {
    switch (rng() % 16) {
      case 0: script.push_back(resp({"SET", key(), num()})); break;
      case 1: script.push_back(resp({"GET", key()})); break;
      case 2: script.push_back(resp({"INCR", key()})); break;
      case 3: script.push_back(resp({"APPEND", key(), "x"})); break;
      case 4: script.push_back(resp({"DEL", key(), key(), key()})); break;
      case 5: script.push_back(resp({"MGET", key(), key(), key(), key()})); break;
      case 6: script.push_back(resp({"MSET", key(), num(), key(), num()})); break;
      case 7: script.push_back(resp({"EXISTS", key(), key()})); break;
      case 8: script.push_back(resp({"RENAME", key(), key()})); break;
      case 9: script.push_back(resp({"RENAMENX", key(), key()})); break;
      case 10: script.push_back(resp({"MSETNX", key(), num(), key(), num()})); break;
      case 11: script.push_back(resp({"SELECT", std::to_string(rng() % 2)})); break;
      case 12: script.push_back(resp({"STRLEN", key()})); break;
      case 13: script.push_back(resp({"GETDEL", key()})); break;
      case 14: script.push_back(resp({"DBSIZE"})); break;
      default: script.push_back(resp({"SETNX", key(), num()})); break;
    }
  }
  return script;
}

std::string one_shard_replies(const std::vector<std::string>& script) {
  duet::kv::ServerState state;
  duet::kv::Session session(state);
  std::string all;
  for (const std::string& cmd : script) all += kvtest::talk(session, cmd);
  return all;
}

std::string joined(const std::vector<std::string>& script, std::size_t from, std::size_t to) {
  std::string bytes;
  for (std::size_t i = from; i < to; ++i) bytes += script[i];
  return bytes;
}

// `big` under a key on shard 1, set through `client`; returns the key.
std::string set_big_value_on_shard_1(FakeShards& fake, ShardClient& client, const std::string& big) {
  const std::string key = fake.key_on(1, "big");
  client.send(resp({"SET", key, big}));
  kvtest::settle(fake, {&client});
  client.take();
  return key;
}

}  // namespace

TEST_CASE("a connection on any shard gets the replies one shard would give, in order, for random pipelines",
          "[kv][shard]") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const auto script = random_script(rng, 300);
    const std::string expected = one_shard_replies(script);
    const std::size_t shards = 2 + seed % 3;
    FakeShards fake(shards, seed);
    ShardClient client(fake, seed % shards);
    std::size_t at = 0;
    while (at < script.size()) {  // pipelines of 1 to 64 commands, one after another
      const std::size_t n = std::min<std::size_t>(1 + rng() % 64, script.size() - at);
      client.send(joined(script, at, at + n));
      kvtest::settle(fake, {&client});
      at += n;
    }
    INFO("seed " << seed << ", " << shards << " shards");
    REQUIRE(client.take() == expected);
  }
}

TEST_CASE("a pipeline of 1,000 commands over keys on every shard returns its replies in order", "[kv][shard]") {
  FakeShards fake(2);
  ShardClient client(fake, 0);
  std::string pipeline;
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    const std::string key = fake.key_on(static_cast<std::size_t>(i % 2), "p" + std::to_string(i) + ":");
    if (i % 2 == 0) {
      pipeline += resp({"SET", key, std::to_string(i)});
      expected += "+OK\r\n";
    } else {
      pipeline += resp({"INCRBY", key, std::to_string(i)});
      expected += ":" + std::to_string(i) + "\r\n";
    }
  }
  client.send(pipeline);
  kvtest::settle(fake, {&client});
  REQUIRE(client.take() == expected);
}

TEST_CASE("SELECT holds per connection when the key lives on another shard", "[kv][shard]") {
  FakeShards fake(2);
  ShardClient client(fake, 0);
  const std::string remote = fake.key_on(1);
  client.send(resp({"SELECT", "3"}) + resp({"SET", remote, "v"}) + resp({"SELECT", "0"}) + resp({"GET", remote}));
  kvtest::settle(fake, {&client});
  CHECK(client.take() == "+OK\r\n+OK\r\n+OK\r\n$-1\r\n");
  CHECK(fake.cluster.shard(1).state().store().db(3).size() == 1);
  CHECK(fake.cluster.shard(0).state().store().db(3).size() == 0);
}

TEST_CASE("KEYS, DBSIZE, SCAN, RANDOMKEY and FLUSHALL cover every shard", "[kv][shard]") {
  FakeShards fake(3);
  ShardClient client(fake, 1);
  std::set<std::string> keys;
  std::string cmds;
  for (int i = 0; i < 200; ++i) {
    keys.insert("k" + std::to_string(i));
    cmds += resp({"SET", "k" + std::to_string(i), "v"});
  }
  client.send(cmds);
  kvtest::settle(fake, {&client});
  client.take();
  for (std::size_t s = 0; s < 3; ++s) CHECK(fake.cluster.shard(s).state().store().db(0).size() > 30);

  client.send(resp({"DBSIZE"}));
  kvtest::settle(fake, {&client});
  CHECK(client.take() == ":200\r\n");

  client.send(resp({"KEYS", "*"}));
  kvtest::settle(fake, {&client});
  std::string reply = client.take();
  CHECK(reply.rfind("*200\r\n", 0) == 0);

  std::set<std::string> scanned;
  std::string cursor = "0";
  int rounds = 0;
  do {
    client.send(resp({"SCAN", cursor, "COUNT", "7"}));
    kvtest::settle(fake, {&client});
    std::string r = client.take();
    std::size_t at = r.find('$');
    std::size_t eol = r.find("\r\n", at);
    std::size_t len = std::stoul(r.substr(at + 1, eol - at - 1));
    cursor = r.substr(eol + 2, len);
    std::size_t pos = r.find("\r\n", eol + 2 + len + 2) + 2;  // past the keys' array header
    while (pos < r.size()) {
      std::size_t e = r.find("\r\n", pos);
      std::size_t n = std::stoul(r.substr(pos + 1, e - pos - 1));
      CHECK(scanned.insert(r.substr(e + 2, n)).second);  // each key once
      pos = e + 2 + n + 2;
    }
    REQUIRE(++rounds < 500);
  } while (cursor != "0");
  CHECK(scanned == keys);

  client.send(resp({"RANDOMKEY"}));
  kvtest::settle(fake, {&client});
  reply = client.take();
  CHECK(keys.count(reply.substr(reply.find("\r\n") + 2, reply.size() - reply.find("\r\n") - 4)) == 1);

  client.send(resp({"FLUSHALL"}) + resp({"DBSIZE"}) + resp({"RANDOMKEY"}));
  kvtest::settle(fake, {&client});
  CHECK(client.take() == "+OK\r\n:0\r\n$-1\r\n");
}

TEST_CASE("QUIT after commands on other shards closes only once their replies are out", "[kv][shard]") {
  FakeShards fake(2);
  ShardClient client(fake, 0);
  client.send(resp({"SET", fake.key_on(1), "v"}) + resp({"QUIT"}) + resp({"SET", fake.key_on(0), "never"}));
  CHECK_FALSE(client.session.closing());
  kvtest::settle(fake, {&client});
  CHECK(client.take() == "+OK\r\n+OK\r\n");
  CHECK(client.session.closing());
  CHECK(fake.cluster.shard(0).state().store().db(0).size() == 0);
}

TEST_CASE("a connection that goes away with commands on other shards leaks nothing and blocks no one",
          "[kv][shard]") {
  FakeShards fake(2);
  ShardClient other(fake, 1);
  {
    ShardClient gone(fake, 0);
    gone.send(resp({"SET", fake.key_on(1), "v"}) + resp({"MSET", fake.key_on(0), "a", fake.key_on(1, "z"), "b"}));
    fake.step();
  }
  other.send(resp({"GET", fake.key_on(1)}) + resp({"MGET", fake.key_on(0), fake.key_on(1, "z")}));
  kvtest::settle(fake, {&other});
  CHECK(other.take() == "$1\r\nv\r\n*2\r\n$-1\r\n$-1\r\n");  // the MSET never left: it waited for the SET
}

TEST_CASE("a connection keeps at most 128 commands waiting on other shards, so a pipeline of big GETs stays bounded",
          "[kv][shard]") {
  FakeShards fake(2);
  ShardClient client(fake, 0);
  const std::string big(100'000, 'v');
  const std::string key = set_big_value_on_shard_1(fake, client, big);
  std::string pipeline;
  for (int i = 0; i < 300; ++i) pipeline += resp({"GET", key});
  client.send(pipeline);
  std::size_t round_trips = 0;
  while (fake.step()) {
    ++round_trips;
    client.drain();
  }
  kvtest::settle(fake, {&client});
  const std::string replies = client.take();
  CHECK(replies.size() == 300 * (big.size() + 11));  // "$100000\r\n" + value + "\r\n", every one
  CHECK(round_trips >= 2 * 3);  // 300 commands in batches of at most 128: three there and back
}

TEST_CASE("every reply of a long pipeline for another shard arrives when the output limit holds the connection back",
          "[kv][shard]") {
  for (std::size_t home = 0; home < 2; ++home) {
    FakeShards fake(2);
    for (std::size_t s = 0; s < 2; ++s) fake.cluster.shard(s).state().config().client_output_limit = 1 << 20;
    ShardClient client(fake, home);
    const std::string big(100'000, 'v');
    const std::string key = set_big_value_on_shard_1(fake, client, big);
    std::string pipeline;
    for (int i = 0; i < 800; ++i) pipeline += resp({"GET", key}) + resp({"PING"});
    client.send(pipeline);
    kvtest::settle(fake, {&client});
    const std::string replies = client.take();
    INFO("connection on shard " << home);
    CHECK(replies.size() == 800 * (big.size() + 11 + 7));  // each GET's reply and "+PONG\r\n"
  }
}
