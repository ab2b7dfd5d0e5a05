// Blocking commands over keys of several shards (kv/shard/multi_block.hpp):
// served once, by whichever shard's key is pushed, first come first served,
// under seeded interleavings of the shards' messages; timeouts, CLIENT
// UNBLOCK and a client that goes race the pushes and lose nothing.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using kvtest::FakeShards;
using kvtest::resp;
using kvtest::ShardClient;

namespace {

// A client's answer once woken (a blocked session's driver collects it).
std::string woken_answer(ShardClient& c) {
  c.session.collect_pushes();
  c.drain();
  return c.take();
}

std::string popped(const std::string& key, const std::string& value) {
  return "*2\r\n$" + std::to_string(key.size()) + "\r\n" + key + "\r\n$" + std::to_string(value.size()) + "\r\n" +
         value + "\r\n";
}

// LLEN of both keys, summed (read from shard 0: one of them is a hop away).
std::int64_t elements_left(FakeShards& fake, const std::string& a, const std::string& b) {
  ShardClient reader(fake, 0);
  reader.send(resp({"LLEN", a}) + resp({"LLEN", b}));
  kvtest::settle(fake, {&reader});
  const std::string r = reader.take();
  return std::stoll(r.substr(1, r.find('\r') - 1)) + std::stoll(r.substr(r.rfind(':') + 1));
}

}  // namespace

TEST_CASE("clients blocked on keys of two shards are served by the key pushed, first come first served",
          "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string k0 = fake.key_on(0, "a");
    const std::string k1 = fake.key_on(1, "b");
    ShardClient first(fake, 0);
    ShardClient second(fake, 1);
    ShardClient pusher(fake, seed % 2);
    first.send(resp({"BLPOP", k0, k1, "0"}) + resp({"PING"}));
    kvtest::settle(fake, {&first});
    second.send(resp({"BRPOP", k1, k0, "0"}));
    kvtest::settle(fake, {&first, &second});
    CHECK(first.session.blocked());
    CHECK(second.session.blocked());
    pusher.send(resp({"RPUSH", k1, "x"}));
    kvtest::settle(fake, {&first, &second, &pusher});
    CHECK(woken_answer(first) == popped(k1, "x") + "+PONG\r\n");
    CHECK(second.session.blocked());
    pusher.send(resp({"RPUSH", k0, "y"}));
    kvtest::settle(fake, {&first, &second, &pusher});
    CHECK(woken_answer(second) == popped(k0, "y"));
    CHECK(elements_left(fake, k0, k1) == 0);
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
}

TEST_CASE("elements already there are taken in the order the keys are named, across shards",
          "[kv][shard][blocking]") {
  FakeShards fake(2, 4);
  const std::string k0 = fake.key_on(0, "a");
  const std::string k1 = fake.key_on(1, "b");
  ShardClient c(fake, 1);
  c.send(resp({"RPUSH", k1, "one"}) + resp({"RPUSH", k0, "two"}) + resp({"BLPOP", k0, k1, "0"}) +
         resp({"BLMPOP", "0", "2", k0, k1, "LEFT", "COUNT", "5"}));
  kvtest::settle(fake, {&c});
  CHECK(c.take() == ":1\r\n:1\r\n" + popped(k0, "two") + "*2\r\n$" + std::to_string(k1.size()) + "\r\n" + k1 +
                        "\r\n*1\r\n$3\r\none\r\n");
}

TEST_CASE("pushes on two shards at once serve a client blocked on both exactly once", "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string k0 = fake.key_on(0, "a");
    const std::string k1 = fake.key_on(1, "b");
    ShardClient blocked(fake, seed % 2);
    ShardClient p0(fake, 0);
    ShardClient p1(fake, 1);
    blocked.send(resp({"BLPOP", k0, k1, "0"}));
    kvtest::settle(fake, {&blocked});
    REQUIRE(blocked.session.blocked());
    p0.session.feed(resp({"RPUSH", k0, "x"}));  // both before either shard's messages run
    p1.session.feed(resp({"RPUSH", k1, "y"}));
    kvtest::settle(fake, {&blocked, &p0, &p1});
    const std::string answer = woken_answer(blocked);
    CHECK((answer == popped(k0, "x") || answer == popped(k1, "y")));
    CHECK(elements_left(fake, k0, k1) == 1);  // the other element stays for the next client
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
}

TEST_CASE("a timeout racing pushes on two shards answers once and loses no element", "[kv][shard][blocking]") {
  int timed_out = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string k0 = fake.key_on(0, "a");
    const std::string k1 = fake.key_on(1, "b");
    ShardClient blocked(fake, 0);
    ShardClient p0(fake, 0);
    ShardClient p1(fake, 1);
    blocked.send(resp({"BLMPOP", "0.5", "2", k0, k1, "RIGHT"}));
    kvtest::settle(fake, {&blocked});
    REQUIRE(blocked.session.block_wait_ms() == 500);
    if (seed % 3 != 0) p0.session.feed(resp({"RPUSH", k0, "x"}));
    if (seed % 2 != 0) p1.session.feed(resp({"RPUSH", k1, "y"}));
    fake.now += 500;
    blocked.session.timed_out();
    kvtest::settle(fake, {&blocked, &p0, &p1});
    const std::string answer = woken_answer(blocked);
    const std::int64_t pushed = (seed % 3 != 0 ? 1 : 0) + (seed % 2 != 0 ? 1 : 0);
    if (answer == "*-1\r\n") {
      ++timed_out;
      CHECK(elements_left(fake, k0, k1) == pushed);
    } else {
      CHECK(answer.starts_with("*2\r\n"));
      CHECK(elements_left(fake, k0, k1) == pushed - 1);
    }
    CHECK_FALSE(blocked.session.blocked());
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
  CHECK(timed_out > 0);  // the seeds reach both outcomes
  CHECK(timed_out < 40);
}

TEST_CASE("client unblock error ends a block over two shards with -UNBLOCKED", "[kv][shard][blocking]") {
  FakeShards fake(2, 7);
  const std::string k0 = fake.key_on(0, "a");
  const std::string k1 = fake.key_on(1, "b");
  ShardClient blocked(fake, 0);
  ShardClient admin(fake, 0);
  blocked.send(resp({"BLPOP", k0, k1, "0"}));
  kvtest::settle(fake, {&blocked});
  admin.send(resp({"CLIENT", "UNBLOCK", std::to_string(blocked.session.client().id), "ERROR"}));
  kvtest::settle(fake, {&blocked, &admin});
  CHECK(admin.take() == ":1\r\n");
  CHECK(woken_answer(blocked) == "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  ShardClient pusher(fake, 1);
  pusher.send(resp({"RPUSH", k1, "kept"}));
  kvtest::settle(fake, {&blocked, &pusher});
  CHECK(elements_left(fake, k0, k1) == 1);
}

TEST_CASE("a client that goes while blocked on two shards leaves nothing on either", "[kv][shard][blocking]") {
  FakeShards fake(2, 11);
  const std::string k0 = fake.key_on(0, "a");
  const std::string k1 = fake.key_on(1, "b");
  {
    ShardClient gone(fake, 1);
    gone.send(resp({"BRPOP", k0, k1, "0"}));
    kvtest::settle(fake, {&gone});
    CHECK(gone.session.blocked());
  }
  fake.pump();
  CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
  CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  CHECK(elements_left(fake, k0, k1) == 0);
  ShardClient pusher(fake, 0);
  pusher.send(resp({"RPUSH", k0, "kept"}) + resp({"RPUSH", k1, "kept"}));
  kvtest::settle(fake, {&pusher});
  CHECK(elements_left(fake, k0, k1) == 2);
}

TEST_CASE("a client that goes while its blocks wait at gates held by jobs frees nothing a gate still holds",
          "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string l0 = fake.key_on(0, "l");
    const std::string l1 = fake.key_on(1, "l");
    const std::string s0 = fake.key_on(0, "s");
    const std::string s1 = fake.key_on(1, "s");
    auto gone = std::make_unique<ShardClient>(fake, seed % 2);
    ShardClient w0(fake, 0);
    ShardClient w1(fake, 1);
    gone->session.feed(resp({"BLPOP", l0, l1, "0"}));
    for (int i = 0; i < 3; ++i) {  // jobs over both shards keep the gates busy while the parts arrive
      w0.session.feed(resp({"MSET", s0, "x", s1, "y"}));
      w1.session.feed(resp({"MSET", s1, "y", s0, "x"}));
      for (std::uint64_t n = 0; n < seed % 5; ++n) fake.step();
    }
    gone.reset();
    kvtest::settle(fake, {&w0, &w1});
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
}
