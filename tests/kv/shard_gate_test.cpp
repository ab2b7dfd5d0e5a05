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

// A passer is a batch of single-shard commands; one connection's batches to
// a shard must run in the order it sent them (a GET after its SET must see
// it), so a read that the gate would let pass waits behind a queued write.
TEST_CASE("a passer that comes after a queued passer waits behind it, though its mode would let it pass",
          "[kv][shard][gate]") {
  ShardGate gate;
  std::vector<std::string> log;
  Noted reader("reader", Mode::share, log), set("set", Mode::pass_write, log), get("get", Mode::pass_read, log);
  REQUIRE(gate.acquire(reader));
  CHECK_FALSE(gate.wait(set));
  CHECK_FALSE(gate.passes(Mode::pass_read));
  CHECK_FALSE(gate.wait(get));  // the gate is only shared, but the write came first
  gate.release(reader);
  CHECK(log == std::vector<std::string>{"set", "get"});
  CHECK(gate.passes(Mode::pass_read));
  CHECK(gate.passes(Mode::pass_write));
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

// Stands in for a job over several shards that holds one shard's gate.
struct HeldGate : GateWaiter {
  ShardGate& gate;
  HeldGate(ShardGate& g, Mode mode) : gate(g) {
    mode_ = mode;
    resume_ = [](GateWaiter*) noexcept {};
    REQUIRE(gate.acquire(*this));
  }
  void release() { gate.release(*this); }
};

}  // namespace

// Each run of commands sends its own batch: the GET's batch must not pass the
// SET's, which waits at the gate, whether the key's shard is another one or
// the connection's own (where the gate sends the SET as a batch too).
TEST_CASE("a read sent after a write on one shard sees it while the write waits at that shard's gate",
          "[kv][shard][gate]") {
  const std::size_t home = GENERATE(0u, 1u);
  kvtest::FakeShards fake(2);
  const std::string k = fake.key_on(1);
  HeldGate job(fake.cluster.shard(1).gate(), Mode::share);  // a job that only reads
  kvtest::ShardClient client(fake, home);
  client.send(kvtest::resp({"SET", k, "v"}));
  kvtest::settle(fake, {&client});
  client.send(kvtest::resp({"GET", k}));
  kvtest::settle(fake, {&client});
  CHECK(client.received.empty());
  job.release();
  kvtest::settle(fake, {&client});
  CHECK(client.received == "+OK\r\n$1\r\nv\r\n");
}

// PING, SELECT, CLIENT SETNAME ... read no key, so a job's hold on the
// keyspace does not concern them; a command on a key still waits for it.
TEST_CASE("a command that touches no key is answered at once while a job holds its shard's gate alone",
          "[kv][shard][gate]") {
  kvtest::FakeShards fake(2);
  HeldGate job(fake.cluster.shard(0).gate(), Mode::take);
  kvtest::ShardClient client(fake, 0);
  client.send(kvtest::resp({"PING"}));
  client.send(kvtest::resp({"SELECT", "1"}));
  kvtest::settle(fake, {&client});
  CHECK(client.take() == "+PONG\r\n+OK\r\n");
  client.send(kvtest::resp({"SET", fake.key_on(0), "v"}));
  client.send(kvtest::resp({"ECHO", "after"}));
  kvtest::settle(fake, {&client});
  CHECK(client.received.empty());  // the SET waits for the gate, the ECHO for the SET
  job.release();
  kvtest::settle(fake, {&client});
  CHECK(client.received == "+OK\r\n$5\r\nafter\r\n");
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
// and writers over every shard (MSET, RENAME, PUBLISH) that ask once each. Every
// writer should be answered within a number of message steps set by how many
// are in flight, whatever order the shards run their messages in.
//
// Issue 23 (the one hang seen once): before a write job started, the
// connection used to wait on its own shard's gate as a passer that only woke
// the session; the same drain let in the readers' jobs queued behind it, so
// when the session ran the gate was shared again, for ever (writers 3 and 6,
// on shard 0, never answered). Now jobs take their gates themselves and a
// command the gate holds up here runs as a batch inside its turn.
TEST_CASE("writers over several shards are answered while readers over the same shards never stop",
          "[kv][shard][gate]") {
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
  for (std::size_t i = 0; i < 3; ++i) {  // a job on every shard, that touches no key
    writers.emplace_back(std::make_unique<kvtest::ShardClient>(fake, i))->send(kvtest::resp({"PUBLISH", "ch", "m"}));
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
    CHECK(writers[i]->received == (i < 8 ? "+OK\r\n" : ":0\r\n"));
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
