// Blocking commands over keys of several shards (kv/shard/multi_block.hpp,
// and BLMOVE to another shard's list: kv/shard/shard_dispatch_blocking.cpp):
// served once, by whichever shard's key is pushed, first come first served,
// under seeded interleavings of the shards' messages; timeouts, CLIENT
// UNBLOCK and a client that goes race the pushes and lose nothing.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <vector>
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

namespace {

std::string bulk(const std::string& value) { return "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n"; }

// LRANGE key 0 -1, read from a client on shard 0.
std::string range_of(FakeShards& fake, const std::string& key) {
  ShardClient reader(fake, 0);
  reader.send(resp({"LRANGE", key, "0", "-1"}));
  kvtest::settle(fake, {&reader});
  return reader.take();
}

}  // namespace

TEST_CASE("blmove to another shard's list blocks and moves the pushed element, first come first served",
          "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string src = fake.key_on(0, "src");
    const std::string dst = fake.key_on(1, "dst");
    ShardClient first(fake, seed % 2);
    ShardClient second(fake, 1 - seed % 2);
    ShardClient third(fake, 0);
    ShardClient pusher(fake, 1);
    first.send(resp({"BLMOVE", src, dst, "LEFT", "RIGHT", "0"}) + resp({"PING"}));
    kvtest::settle(fake, {&first});
    second.send(resp({"BRPOPLPUSH", src, dst, "0"}));
    kvtest::settle(fake, {&first, &second});
    third.send(resp({"BLPOP", src, "0"}));
    kvtest::settle(fake, {&first, &second, &third});
    REQUIRE(first.session.blocked());
    REQUIRE(second.session.blocked());
    pusher.send(resp({"RPUSH", src, "a", "b"}));  // two elements: the two first clients, in order
    kvtest::settle(fake, {&first, &second, &third, &pusher});
    CHECK(woken_answer(first) == bulk("a") + "+PONG\r\n");
    CHECK(woken_answer(second) == bulk("b"));
    CHECK(third.session.blocked());
    CHECK(range_of(fake, dst) == "*2\r\n" + bulk("b") + bulk("a"));  // BRPOPLPUSH pushes at the head
    pusher.send(resp({"RPUSH", src, "c"}));
    kvtest::settle(fake, {&third, &pusher});
    CHECK(woken_answer(third) == popped(src, "c"));
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
}

TEST_CASE("blmove to another shard blocks again when a pop takes the element first, and loses nothing",
          "[kv][shard][blocking]") {
  int blocked_again = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string src = fake.key_on(1, "src");
    const std::string dst = fake.key_on(0, "dst");
    ShardClient mover(fake, 0);
    ShardClient thief(fake, 1);
    mover.send(resp({"BLMOVE", src, dst, "RIGHT", "LEFT", "0"}));
    kvtest::settle(fake, {&mover});
    REQUIRE(mover.session.blocked());
    thief.session.feed(resp({"RPUSH", src, "x"}) + resp({"RPOP", src}));  // push and steal before the move's job
    kvtest::settle(fake, {&mover, &thief});
    const std::string stolen = thief.take();
    if (mover.session.blocked()) {
      ++blocked_again;
      CHECK(stolen == ":1\r\n" + bulk("x"));
      thief.send(resp({"RPUSH", src, "y"}));
      kvtest::settle(fake, {&mover, &thief});
      CHECK(woken_answer(mover) == bulk("y"));
      CHECK(range_of(fake, dst) == "*1\r\n" + bulk("y"));
    } else {
      CHECK(stolen == ":1\r\n$-1\r\n");
      CHECK(woken_answer(mover) == bulk("x"));
      CHECK(range_of(fake, dst) == "*1\r\n" + bulk("x"));
    }
    CHECK(elements_left(fake, src, src) == 0);
  }
  CHECK(blocked_again > 0);  // the steal won on some seeds
}

TEST_CASE("blmove to another shard times out or is unblocked once, even while its move runs",
          "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    const std::string src = fake.key_on(0, "src");
    const std::string dst = fake.key_on(1, "dst");
    ShardClient mover(fake, 1);
    ShardClient admin(fake, 1);
    ShardClient pusher(fake, 0);
    mover.send(resp({"BLMOVE", src, dst, "LEFT", "LEFT", "0.5"}));
    kvtest::settle(fake, {&mover});
    REQUIRE(mover.session.block_wait_ms() == 500);
    const bool pushed = seed % 3 != 0;
    if (pushed) pusher.session.feed(resp({"RPUSH", src, "x"}));
    for (std::uint64_t n = 0; n < seed % 6; ++n) fake.step();
    const bool by_error = seed % 2 == 0;
    if (by_error) {
      admin.session.feed(resp({"CLIENT", "UNBLOCK", std::to_string(mover.session.client().id), "ERROR"}));
    } else {
      fake.now += 500;
      mover.session.timed_out();
    }
    kvtest::settle(fake, {&mover, &admin, &pusher});
    const std::string answer = woken_answer(mover);
    if (answer == bulk("x")) {
      CHECK(pushed);
      CHECK(range_of(fake, dst) == "*1\r\n" + bulk("x"));
      CHECK(elements_left(fake, src, dst) == 1);
    } else {
      CHECK(answer == (by_error ? "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" : "*-1\r\n"));
      CHECK(elements_left(fake, src, dst) == (pushed ? 1 : 0));  // left in the source
    }
    CHECK_FALSE(mover.session.blocked());
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
  }
}

namespace {

// Every "E<n>" value in a stream of replies.
std::multiset<std::string> values_in(std::string_view replies) {
  std::multiset<std::string> out;
  for (std::size_t at = replies.find("\r\nE"); at != std::string_view::npos; at = replies.find("\r\nE", at + 2)) {
    const std::size_t end = replies.find("\r\n", at + 2);
    out.emplace(replies.substr(at + 2, end - at - 2));
  }
  return out;
}

}  // namespace

TEST_CASE("blocking moves and pops racing pushes, pops and timeouts over two shards keep every element once",
          "[kv][shard][blocking]") {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(2, seed);
    std::mt19937_64 rng(seed * 7919);
    const std::vector<std::string> sources = {fake.key_on(0, "s"), fake.key_on(1, "s")};
    const std::vector<std::string> dests = {fake.key_on(0, "d"), fake.key_on(1, "d")};
    std::vector<std::unique_ptr<ShardClient>> movers, poppers;
    for (int i = 0; i < 3; ++i) movers.push_back(std::make_unique<ShardClient>(fake, rng() % 2));
    for (int i = 0; i < 2; ++i) poppers.push_back(std::make_unique<ShardClient>(fake, rng() % 2));
    ShardClient pusher(fake, 0);
    ShardClient thief(fake, 1);
    std::vector<ShardClient*> all = {&pusher, &thief};
    for (auto& c : movers) all.push_back(c.get());
    for (auto& c : poppers) all.push_back(c.get());
    std::multiset<std::string> pushed, moved, popped;
    auto idle = [](ShardClient& c) { return !c.session.blocked() && !c.session.waiting_on_shards(); };
    for (int round = 0; round < 200; ++round) {
      switch (rng() % 6) {
        case 0: {
          const std::string v = "E" + std::to_string(pushed.size());
          pushed.insert(v);
          pusher.session.feed(resp({"RPUSH", sources[rng() % 2], v}));
          break;
        }
        case 1: thief.session.feed(resp({"LPOP", sources[rng() % 2]})); break;
        case 2: {
          ShardClient& m = *movers[rng() % movers.size()];
          if (idle(m)) m.session.feed(resp({"BLMOVE", sources[rng() % 2], dests[rng() % 2], "LEFT", "RIGHT", "0.5"}));
          break;
        }
        case 3: {
          ShardClient& p = *poppers[rng() % poppers.size()];
          if (idle(p)) p.session.feed(resp({"BLPOP", sources[rng() % 2], sources[rng() % 2], "0.5"}));
          break;
        }
        case 4:
          fake.now += 100;
          for (ShardClient* c : all) c->session.timed_out();
          break;
        default:
          for (std::uint64_t n = rng() % 8; n > 0; --n) fake.step();
      }
      for (ShardClient* c : all) {
        c->session.collect_pushes();
        c->drain();
      }
    }
    for (int pass = 0; pass < 3; ++pass) {  // a block made while the last pass settled times out in the next
      fake.now += 1000;
      for (ShardClient* c : all) c->session.timed_out();
      kvtest::settle(fake, all);
      for (ShardClient* c : all) c->session.collect_pushes();
      kvtest::settle(fake, all);
    }
    for (auto& m : movers) moved.merge(values_in(m->take()));
    for (auto& p : poppers) popped.merge(values_in(p->take()));
    popped.merge(values_in(thief.take()));
    std::multiset<std::string> in_dests, in_sources;
    for (const std::string& d : dests) in_dests.merge(values_in(range_of(fake, d)));
    for (const std::string& s : sources) in_sources.merge(values_in(range_of(fake, s)));
    CHECK(in_dests == moved);  // every move a client was told of happened, once
    std::multiset<std::string> accounted = moved;
    accounted.merge(popped);
    accounted.merge(in_sources);
    CHECK(accounted == pushed);  // nothing lost, nothing twice
    for (auto& m : movers) CHECK_FALSE(m->session.blocked());
    CHECK_FALSE(fake.cluster.shard(0).state().store().has_blocked());
    CHECK_FALSE(fake.cluster.shard(1).state().store().has_blocked());
  }
}

TEST_CASE("a job's push serves its blocked clients before the next job may copy the key",
          "[kv][shard][blocking]") {
  int served = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    FakeShards fake(3, seed);
    const std::string from = fake.key_on(0, "from");
    const std::string k = fake.key_on(1, "k");
    const std::string to = fake.key_on(2, "to");
    ShardClient setup(fake, 0);
    setup.send(resp({"RPUSH", from, "x"}));
    kvtest::settle(fake, {&setup});
    ShardClient waiter(fake, 1);
    waiter.send(resp({"BLPOP", k, "0"}));
    kvtest::settle(fake, {&waiter});
    REQUIRE(waiter.session.blocked());
    ShardClient pusher(fake, 0);  // a job over shards 0 and 1 that pushes onto k ...
    ShardClient taker(fake, 2);   // ... and one over shards 1 and 2 that may queue behind it at k's gate
    pusher.session.feed(resp({"LMOVE", from, k, "LEFT", "RIGHT"}));
    for (std::uint64_t n = 0; n < seed % 5; ++n) fake.step();
    taker.session.feed(resp({"LMOVE", k, to, "LEFT", "RIGHT"}));
    kvtest::settle(fake, {&waiter, &pusher, &taker});
    const std::string got = woken_answer(waiter);
    const std::string took = taker.take();
    if (got == popped(k, "x")) {
      ++served;
      CHECK(took == "$-1\r\n");  // the waiter had it: the second move found k empty
      CHECK(range_of(fake, to) == "*0\r\n");
    } else {
      CHECK(got.empty());
      CHECK(took == bulk("x"));
      CHECK(range_of(fake, to) == "*1\r\n" + bulk("x"));
    }
  }
  CHECK(served > 0);
}

TEST_CASE("a blmove to another shard that goes after its source said ready leaves the element to the next waiter",
          "[kv][shard][blocking]") {
  FakeShards fake(2, 13);
  const std::string src = fake.key_on(1, "src");
  const std::string dst = fake.key_on(0, "dst");
  auto mover = std::make_unique<ShardClient>(fake, 0);
  mover->send(resp({"BLMOVE", src, dst, "LEFT", "LEFT", "0"}));
  kvtest::settle(fake, {mover.get()});
  ShardClient next(fake, 1);
  next.send(resp({"BLPOP", src, "0"}));
  kvtest::settle(fake, {mover.get(), &next});
  REQUIRE(next.session.blocked());
  ShardClient pusher(fake, 1);
  pusher.session.feed(resp({"RPUSH", src, "x"}));  // serves the mover first: READY is on its way to shard 0
  mover.reset();                                   // ... which finds the connection gone
  kvtest::settle(fake, {&next, &pusher});
  CHECK(woken_answer(next) == popped(src, "x"));
  CHECK(range_of(fake, dst) == "*0\r\n");
}
