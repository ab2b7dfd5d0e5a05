// ShardGate: the reader-writer lock of one shard's keyspace (kv/shard/shard_gate.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kv/shard/shard_gate.hpp"

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
