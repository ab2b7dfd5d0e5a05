// ShardGate: the reader-writer lock of one shard's keyspace (kv/shard/shard_gate.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "kv/shard/shard_gate.hpp"
#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using duet::kv::GateWaiter;
using duet::kv::ShardGate;
using Mode = GateWaiter::Mode;

namespace {

// A waiter that notes, in a shared log, when its turn came.
struct Noted : GateWaiter {
  std::string name;
  std::vector<std::string>* log = nullptr;
  Noted(std::string n, Mode mode, std::vector<std::string>& into) : name(std::move(n)), log(&into) {
    mode_ = mode;
    resume_ = [](GateWaiter* self) noexcept {
      auto* w = static_cast<Noted*>(self);
      w->log->push_back(w->name);
    };
  }
};

}  // namespace

TEST_CASE("readers share the gate and a writer takes it only after the last reader leaves", "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  Noted r1("r1", Mode::share, log), r2("r2", Mode::share, log), w("w", Mode::take, log);
  CHECK(gate.acquire(r1));
  CHECK(gate.acquire(r2));
  CHECK(gate.sharers() == 2);
  CHECK_FALSE(gate.open());
  CHECK(gate.open_for_reads());
  CHECK_FALSE(gate.acquire(w));
  gate.release(r1);
  CHECK(log.empty());
  gate.release(r2);
  CHECK(log == std::vector<std::string>{"w"});
  CHECK(gate.holder() == &w);
  CHECK_FALSE(gate.open_for_reads());
  gate.release(w);
  CHECK(gate.open());
}

TEST_CASE("a reader that comes after a queued writer waits behind it, so readers cannot starve writers",
          "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  Noted r1("r1", Mode::share, log), w("w", Mode::take, log), r2("r2", Mode::share, log), r3("r3", Mode::share, log);
  CHECK(gate.acquire(r1));
  CHECK_FALSE(gate.acquire(w));
  CHECK_FALSE(gate.acquire(r2));  // the gate is shared, but a writer is queued first
  CHECK_FALSE(gate.acquire(r3));
  gate.release(r1);
  CHECK(log == std::vector<std::string>{"w"});
  gate.release(w);
  CHECK(log == std::vector<std::string>{"w", "r2", "r3"});  // both readers in at once
  CHECK(gate.sharers() == 2);
}

TEST_CASE("a single-shard read passes readers but not a writer; a single-shard write waits for both",
          "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  Noted reader("reader", Mode::share, log), writer("writer", Mode::take, log);
  Noted get("get", Mode::pass_read, log), set("set", Mode::pass_write, log);
  REQUIRE(gate.acquire(reader));
  CHECK(gate.wait(get));
  CHECK_FALSE(gate.wait(set));
  gate.release(reader);
  CHECK(log == std::vector<std::string>{"set"});
  CHECK(gate.open());  // passing holds nothing

  Noted get2("get2", Mode::pass_read, log);
  REQUIRE(gate.acquire(writer));
  CHECK_FALSE(gate.wait(get2));
  gate.release(writer);
  CHECK(log == std::vector<std::string>{"set", "get2"});
}

TEST_CASE("release resumes waiters in the order they queued until one must wait again", "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  Noted first("first", Mode::take, log), a("a", Mode::pass_write, log), b("b", Mode::share, log),
      c("c", Mode::pass_read, log), d("d", Mode::take, log), e("e", Mode::pass_read, log);
  REQUIRE(gate.acquire(first));
  CHECK_FALSE(gate.wait(a));
  CHECK_FALSE(gate.acquire(b));
  CHECK_FALSE(gate.wait(c));
  CHECK_FALSE(gate.acquire(d));
  CHECK_FALSE(gate.wait(e));
  gate.release(first);
  // a passes, b shares, c reads beside b; d needs b gone, and e stays behind d.
  CHECK(log == std::vector<std::string>{"a", "b", "c"});
  gate.release(b);
  CHECK(log == std::vector<std::string>{"a", "b", "c", "d"});
  gate.release(d);
  CHECK(log == std::vector<std::string>{"a", "b", "c", "d", "e"});
}

TEST_CASE("a cancelled waiter is never resumed", "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  Noted holder("holder", Mode::take, log), gone("gone", Mode::pass_write, log), next("next", Mode::pass_write, log);
  REQUIRE(gate.acquire(holder));
  CHECK_FALSE(gate.wait(gone));
  CHECK_FALSE(gate.wait(next));
  gate.cancel(gone);
  gate.release(holder);
  CHECK(log == std::vector<std::string>{"next"});
}

// Each turn a new reader comes and the oldest one inside leaves: the gate is
// never without a reader, yet the writer that queued behind the first two
// takes it as soon as those two are gone, and the readers after it wait.
TEST_CASE("a writer queued behind a stream of readers takes the gate once the readers before it leave",
          "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  std::deque<Noted> readers;  // a deque: waiters never move
  std::size_t inside = 0;     // readers[inside..] have not left
  readers.emplace_back("r0", Mode::share, log);
  readers.emplace_back("r1", Mode::share, log);
  REQUIRE(gate.acquire(readers[0]));
  REQUIRE(gate.acquire(readers[1]));
  Noted writer("w", Mode::take, log), get("get", Mode::pass_read, log);
  CHECK_FALSE(gate.acquire(writer));
  int turns = 0;
  for (; turns < 50 && gate.holder() != &writer; ++turns) {
    readers.emplace_back("r" + std::to_string(readers.size()), Mode::share, log);
    CHECK_FALSE(gate.acquire(readers.back()));  // behind the writer, though the gate is shared
    CHECK(gate.wait(get));                      // a single-shard read holds nothing: it passes
    gate.release(readers[inside++]);
  }
  CHECK(turns == 2);
  REQUIRE(gate.holder() == &writer);
  CHECK(log == std::vector<std::string>{"w"});
  gate.release(writer);
  CHECK(log == std::vector<std::string>{"w", "r2", "r3"});
  CHECK(gate.sharers() == 2);
}

namespace {

// A client that sends its command again as soon as its reply is in.
struct Looping {
  kvtest::ShardClient client;
  std::string command;
  std::size_t replies = 0;
  Looping(kvtest::FakeShards& fake, std::size_t shard, std::string bytes)
      : client(fake, shard), command(std::move(bytes)) {
    client.send(command);
  }
  bool poll() {
    bool moved = client.drain();
    if (client.received.empty()) return moved;
    if (client.received.front() == '-') FAIL_CHECK(client.received);
    client.take();
    ++replies;
    client.send(command);
    return true;
  }
};

}  // namespace

// The gates as jobs and connections meet them: readers over every shard
// (MGET, EXISTS) that never stop, single-shard reads and writes beside them,
// and writers over every shard (MSET, RENAME) that ask once each. Every
// writer should be answered within a number of message steps set by how many
// are in flight, whatever order the shards run their messages in.
//
// KNOWN DEFECT (issue 23, C), hence [!shouldfail]: it is not. Before a write
// job starts (and before a single-shard write runs), ShardDispatch waits on
// its own shard's gate as a passer (pass_write) until nobody holds it. The
// gate itself is fair (the test above), but a passer holds nothing: its
// resume_ only wakes the session, and the same drain then admits the readers'
// jobs queued behind it, so when the session runs the gate is shared again
// and the passer re-queues at the tail, again and again. Writers 3 and 6
// (on shard 0) are never answered while readers keep 5-11 sharers on it; the
// looping SET gets ~30 replies to the MGETs' ~260. RemoteBatch does not
// starve: it runs its commands inside resume_. Drop the tag once fixed.
TEST_CASE("writers over several shards are answered while readers over the same shards never stop",
          "[kv][shard][gate][!shouldfail]") {
  const std::uint64_t seed = GENERATE(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u);
  kvtest::FakeShards fake(3, seed);
  const std::string k0 = fake.key_on(0), k1 = fake.key_on(1), k2 = fake.key_on(2);
  std::vector<std::unique_ptr<Looping>> readers;
  for (std::size_t i = 0; i < 6; ++i) {
    const std::size_t shard = i % 3;
    readers.push_back(std::make_unique<Looping>(fake, shard, kvtest::resp({"MGET", k0, k1, k2})));
    readers.push_back(std::make_unique<Looping>(fake, shard, kvtest::resp({"EXISTS", k2, k1, k0})));
    readers.push_back(std::make_unique<Looping>(fake, shard, kvtest::resp({"GET", fake.key_on(shard)})));
  }
  readers.push_back(std::make_unique<Looping>(fake, 1, kvtest::resp({"SET", k1, "s"})));
  auto source = [&](std::size_t i) { return fake.key_on(i % 3, "x" + std::to_string(i)); };
  kvtest::ShardClient setup(fake, 0);
  for (std::size_t i = 1; i < 8; i += 2) setup.send(kvtest::resp({"SET", source(i), "v"}));
  kvtest::settle(fake, {&setup});
  std::vector<std::unique_ptr<kvtest::ShardClient>> writers;
  for (std::size_t i = 0; i < 8; ++i) {
    auto& w = *writers.emplace_back(std::make_unique<kvtest::ShardClient>(fake, i % 3));
    w.send(i % 2 == 0 ? kvtest::resp({"MSET", k0, "a", k1, "b", k2, "c"})
                      : kvtest::resp({"RENAME", source(i), fake.key_on((i + 1) % 3, "y" + std::to_string(i))}));
  }
  auto answered = [&] {
    std::size_t n = 0;
    for (auto& w : writers) {
      w->drain();
      n += w->received.empty() ? 0 : 1;
    }
    return n;
  };
  std::size_t steps = 0;
  for (; steps < 20'000 && answered() < writers.size(); ++steps) {
    bool moved = fake.step();
    for (auto& r : readers) moved = r->poll() || moved;
    REQUIRE(moved);  // never stuck: someone always has a message or a reply
  }
  INFO(steps << " steps");
  CHECK(answered() == writers.size());
  for (std::size_t i = 0; i < writers.size(); ++i) {
    CHECK(writers[i]->received == "+OK\r\n");
  }
  std::size_t least = SIZE_MAX;
  for (auto& r : readers) least = std::min(least, r->replies);
  CHECK(least > 0);  // and the readers went on meanwhile
  // Drain: the readers stop asking, every job in flight ends.
  for (auto& r : readers) r->command.clear();
  for (int i = 0; i < 100'000 && fake.step(); ++i) {
    for (auto& r : readers) r->poll();
  }
}
