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
