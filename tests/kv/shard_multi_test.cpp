// MULTI/EXEC and WATCH over keys of several shards (kv/shard/tx_job.hpp): as
// atomic as Redis's one thread under many seeded interleavings of the
// shards' messages.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kv/shard/key_shard.hpp"
#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using kvtest::FakeShards;
using kvtest::resp;
using kvtest::ShardClient;

namespace {

// The integers of an EXEC's array reply of integers and bulk integers.
std::vector<std::int64_t> numbers_in(std::string_view reply) {
  std::vector<std::int64_t> out;
  std::size_t pos = reply.find("\r\n") + 2;  // past "*n"
  while (pos < reply.size()) {
    const std::size_t eol = reply.find("\r\n", pos);
    if (reply[pos] == ':') {
      out.push_back(std::stoll(std::string(reply.substr(pos + 1, eol - pos - 1))));
      pos = eol + 2;
    } else if (reply[pos] == '$') {
      const std::size_t end = reply.find("\r\n", eol + 2);
      out.push_back(std::stoll(std::string(reply.substr(eol + 2, end - eol - 2))));
      pos = end + 2;
    } else {
      pos = eol + 2;  // +OK, +QUEUED
    }
  }
  return out;
}

}  // namespace

TEST_CASE("transfers in transactions across shards keep the total for every reader", "[kv][shard][multi]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const std::size_t n = 2 + seed % 2;
    FakeShards fake(n, seed);
    std::mt19937_64 rng(seed);
    std::vector<std::string> accounts;
    for (std::size_t s = 0; s < n; ++s) {
      accounts.push_back(fake.key_on(s, "acct:a"));
      accounts.push_back(fake.key_on(s, "acct:b"));
    }
    std::vector<std::unique_ptr<ShardClient>> clients;
    std::vector<ShardClient*> all;
    for (std::size_t i = 0; i < 2 * n; ++i) all.push_back(clients.emplace_back(std::make_unique<ShardClient>(fake, i % n)).get());
    for (const std::string& a : accounts) clients[0]->send(resp({"SET", a, "100"}));
    kvtest::settle(fake, all);
    clients[0]->take();
    std::string audit = resp({"MULTI"});
    for (const std::string& a : accounts) audit += resp({"GET", a});
    audit += resp({"EXEC"});
    std::vector<std::string> audits;
    for (int round = 0; round < 25; ++round) {
      for (std::size_t c = 0; c < clients.size(); ++c) {
        if (c % 3 == 2) {  // a reader: one transaction that reads every account
          clients[c]->send(audit);
          continue;
        }
        const std::string& from = accounts[rng() % accounts.size()];
        const std::string& to = accounts[rng() % accounts.size()];
        const std::string amount = std::to_string(1 + rng() % 10);
        clients[c]->send(resp({"MULTI"}) + resp({"DECRBY", from, amount}) + resp({"INCRBY", to, amount}) +
                         resp({"EXEC"}));
      }
      kvtest::settle(fake, all);
      for (std::size_t c = 2; c < clients.size(); c += 3) audits.push_back(clients[c]->take());
    }
    INFO("seed " << seed);
    const std::int64_t total = 100 * static_cast<std::int64_t>(accounts.size());
    for (const std::string& reply : audits) {
      const std::size_t exec = reply.rfind('*');
      std::int64_t sum = 0;
      for (std::int64_t v : numbers_in(reply.substr(exec))) sum += v;
      CHECK(sum == total);
    }
  }
}

TEST_CASE("concurrent transactions over the same keys apply in one order on every shard", "[kv][shard][multi]") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    FakeShards fake(2, seed);
    const std::string a = fake.key_on(0, "a");
    const std::string b = fake.key_on(1, "b");
    ShardClient one(fake, 0);
    ShardClient two(fake, 1);
    one.send(resp({"MULTI"}) + resp({"SET", a, "one"}) + resp({"SET", b, "one"}) + resp({"EXEC"}));
    two.send(resp({"MULTI"}) + resp({"SET", b, "two"}) + resp({"SET", a, "two"}) + resp({"EXEC"}));
    kvtest::settle(fake, {&one, &two});
    ShardClient check(fake, seed % 2);
    check.send(resp({"MGET", a, b}));
    kvtest::settle(fake, {&check});
    const std::string got = check.take();
    INFO("seed " << seed << ": " << got);
    CHECK((got == "*2\r\n$3\r\none\r\n$3\r\none\r\n" || got == "*2\r\n$3\r\ntwo\r\n$3\r\ntwo\r\n"));
  }
}

TEST_CASE("a key watched on another shard and changed there fails exec", "[kv][shard][multi]") {
  FakeShards fake(2, 7);
  const std::string far = fake.key_on(1, "w");
  const std::string near = fake.key_on(0, "n");
  ShardClient watcher(fake, 0);
  ShardClient writer(fake, 1);
  watcher.send(resp({"WATCH", far, near}));
  kvtest::settle(fake, {&watcher});
  CHECK(watcher.take() == "+OK\r\n");
  writer.send(resp({"SET", far, "changed"}));
  kvtest::settle(fake, {&writer});
  watcher.send(resp({"MULTI"}) + resp({"SET", near, "x"}) + resp({"EXEC"}) + resp({"EXISTS", near}));
  kvtest::settle(fake, {&watcher});
  CHECK(watcher.take() == "+OK\r\n+QUEUED\r\n*-1\r\n:0\r\n");
  // the watch is gone with that EXEC: the next one runs
  watcher.send(resp({"MULTI"}) + resp({"SET", near, "x"}) + resp({"EXEC"}));
  kvtest::settle(fake, {&watcher});
  CHECK(watcher.take() == "+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n");
}

TEST_CASE("an unchanged watch across shards lets exec run and the entries go away", "[kv][shard][multi]") {
  FakeShards fake(2, 3);
  const std::string far = fake.key_on(1, "w");
  ShardClient watcher(fake, 0);
  watcher.send(resp({"WATCH", far}) + resp({"MULTI"}) + resp({"INCR", far}) + resp({"SELECT", "3"}) + resp({"EXEC"}) +
               resp({"SET", far, "in3"}));
  kvtest::settle(fake, {&watcher});
  CHECK(watcher.take() == "+OK\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n+OK\r\n+OK\r\n");
  CHECK(fake.cluster.shard(1).state().store().db(3).size() == 1);  // SELECT inside EXEC stays selected
  fake.now += 1000;
  fake.cluster.shard(1).state().store().active_expire_cycle(fake.now, 10);  // the cron purges released tickets
  CHECK_FALSE(fake.cluster.shard(1).state().store().watching());
}

namespace {

// A client's answer once woken (a blocked session's driver collects it).
std::string woken_answer(ShardClient& c) {
  c.session.collect_pushes();
  c.drain();
  return c.take();
}

}  // namespace

TEST_CASE("a client blocked on another shard's key is served by a push there, in arrival order", "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    FakeShards fake(2, seed);
    const std::string q = fake.key_on(1, "q");
    ShardClient far(fake, 0);    // blocks on shard 1's key from shard 0
    ShardClient near(fake, 1);   // blocks there too, after it
    ShardClient pusher(fake, seed % 2);
    far.send(resp({"BLPOP", q, "0"}) + resp({"PING"}));
    kvtest::settle(fake, {&far});
    near.send(resp({"BRPOP", q, "0"}));
    kvtest::settle(fake, {&far, &near});
    CHECK(far.session.blocked());
    CHECK(near.session.blocked());
    pusher.send(resp({"RPUSH", q, "a", "b"}));
    kvtest::settle(fake, {&far, &near, &pusher});
    INFO("seed " << seed);
    CHECK(woken_answer(far) == "*2\r\n$" + std::to_string(q.size()) + "\r\n" + q + "\r\n$1\r\na\r\n+PONG\r\n");
    CHECK(woken_answer(near) == "*2\r\n$" + std::to_string(q.size()) + "\r\n" + q + "\r\n$1\r\nb\r\n");
  }
}

TEST_CASE("a remote block that times out answers null unless a push won the race", "[kv][shard][blocking]") {
  FakeShards fake(2, 5);
  const std::string q = fake.key_on(1, "q");
  ShardClient far(fake, 0);
  far.send(resp({"BLPOP", q, "0.5"}));
  kvtest::settle(fake, {&far});
  CHECK(far.session.block_wait_ms() == 500);
  fake.now += 500;
  far.session.timed_out();  // sends the cancel; the answer comes from shard 1
  CHECK(far.session.block_wait_ms() == -1);
  kvtest::settle(fake, {&far});
  CHECK(woken_answer(far) == "*-1\r\n");

  // the push reaches shard 1 before the cancel: the served value is the answer, nothing is lost
  far.send(resp({"BLPOP", q, "0.5"}));
  kvtest::settle(fake, {&far});
  ShardClient pusher(fake, 1);
  pusher.session.feed(resp({"RPUSH", q, "v"}));
  fake.now += 500;
  far.session.timed_out();
  kvtest::settle(fake, {&far, &pusher});
  CHECK(woken_answer(far) == "*2\r\n$" + std::to_string(q.size()) + "\r\n" + q + "\r\n$1\r\nv\r\n");
  pusher.send(resp({"EXISTS", q}));
  kvtest::settle(fake, {&pusher});
  CHECK(pusher.take().ends_with(":0\r\n"));
}

TEST_CASE("a client that goes while blocked on another shard leaves nothing there", "[kv][shard][blocking]") {
  FakeShards fake(2, 9);
  const std::string q = fake.key_on(1, "q");
  {
    ShardClient gone(fake, 0);
    gone.send(resp({"BRPOPLPUSH", q, fake.key_on(1, "d"), "0"}));
    kvtest::settle(fake, {&gone});
    CHECK(fake.cluster.shard(1).state().store().has_blocked());
  }
  fake.pump();
  CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  ShardClient pusher(fake, 1);
  pusher.send(resp({"RPUSH", q, "kept"}) + resp({"LLEN", q}));
  kvtest::settle(fake, {&pusher});
  CHECK(pusher.take() == ":1\r\n:1\r\n");
}

TEST_CASE("client reply off drops the replies of commands run on other shards too", "[kv][shard][client-reply]") {
  FakeShards fake(2, 4);
  const std::string far = fake.key_on(1, "r");
  ShardClient c(fake, 0);
  c.send(resp({"CLIENT", "REPLY", "OFF"}) + resp({"SET", far, "1"}) + resp({"GET", far}) +
         resp({"CLIENT", "REPLY", "ON"}) + resp({"GET", far}));
  kvtest::settle(fake, {&c});
  CHECK(c.take() == "+OK\r\n$1\r\n1\r\n");
}

TEST_CASE("client unblock error answers -UNBLOCKED even before the remote block ran behind a busy gate",
          "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string q = fake.key_on(1, "q");
    ShardClient far(fake, 0);
    ShardClient admin(fake, 0);
    ShardClient writer(fake, 0);
    writer.session.feed(resp({"MSET", fake.key_on(1, "s"), "x", fake.key_on(0, "s"), "y"}));
    while (fake.cluster.shard(1).gate().open() && fake.step()) {  // until the job holds shard 1's gate
    }
    REQUIRE_FALSE(fake.cluster.shard(1).gate().open());
    far.session.feed(resp({"BLPOP", q, "0"}));  // queues at that gate on shard 1 ...
    admin.session.feed(resp({"CLIENT", "UNBLOCK", std::to_string(far.session.client().id), "ERROR"}));
    while (fake.step(1)) {  // ... and the cancel reaches it there; the job goes on elsewhere
    }
    kvtest::settle(fake, {&far, &admin, &writer});
    CHECK(admin.take() == ":1\r\n");
    CHECK(woken_answer(far) == "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
}
