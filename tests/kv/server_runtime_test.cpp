// ServerRuntime's cron on a sharded keyspace (kv/server_runtime.hpp): what
// each shard's tick may do while jobs over several shards hold its gate.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "kv/server_runtime.hpp"

using duet::kv::GateWaiter;
using duet::kv::KvShard;
using duet::kv::ServerOptions;
using duet::kv::ServerRuntime;

namespace {

// Ten keys on `shard` that expire at `at`.
void add_volatile_keys(KvShard& shard, std::int64_t now, std::int64_t at) {
  auto& db = shard.state().store().db(0);
  for (int i = 0; i < 10; ++i) {
    bool created = false;
    auto& e = db.upsert("k" + std::to_string(i), now, created);
    e.value.set_string("v");
    db.set_expire(e, at);
  }
}

}  // namespace

TEST_CASE("the cron expires keys beside jobs that only read, never beside one that writes", "[kv][shard]") {
  ServerOptions options;
  options.threads = 2;
  ServerRuntime runtime(std::move(options));
  KvShard& shard = runtime.cluster().shard(1);
  std::int64_t now = 1'700'000'000'000;
  shard.state().set_clock([&now] { return now; });
  add_volatile_keys(shard, now, now + 10);
  now += 100;  // every key is past its time; only the cron (or a read) removes it
  auto& db = shard.state().store().db(0);

  GateWaiter writer;
  writer.mode_ = GateWaiter::Mode::take;
  REQUIRE(shard.gate().acquire(writer));
  (void)runtime.tick(1);
  CHECK(db.size() == 10);  // the writer's job sees the keyspace stand still
  shard.gate().release(writer);

  GateWaiter reader;
  reader.mode_ = GateWaiter::Mode::share;
  REQUIRE(shard.gate().acquire(reader));
  (void)runtime.tick(1);
  CHECK(db.size() == 0);
  shard.gate().release(reader);
}
