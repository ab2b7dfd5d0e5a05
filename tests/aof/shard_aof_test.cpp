// The one append-only file of a sharded keyspace (kv/aof/aof_feed,
// kv/shard): every shard's writes reach the log in an order that replays, on
// one shard, to exactly the data the shards hold — commands over several
// shards logged once, whole — under many interleavings of the shards.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../kv/kv_test_util.hpp"
#include "../kv/shard_fixture.hpp"
#include "aof_test_util.hpp"
#include "kv/aof/aof_feed.hpp"
#include "kv/aof/aof_loader.hpp"

using namespace duet::kv;
using kvtest::FakeShards;
using kvtest::resp;
using kvtest::ShardClient;

namespace {

// Shard 0's log, in memory: what AofService does with records, minus the file.
class MemoryLog final : public WriteObserver, public AofSink {
 public:
  explicit MemoryLog(KvShard& shard) : shard_(shard) {
    shard.state().set_write_observer(this);
    for (int db = 0; db < Store::db_count; ++db) {
      hooks_[static_cast<std::size_t>(db)] = {this, db};
      shard.state().store().db(db).set_expire_hook(
          [](void* c, const Entry& e) {
            auto* h = static_cast<Hook*>(c);
            h->self->on_expired(h->db, e);
          },
          &hooks_[static_cast<std::size_t>(db)]);
    }
    shard.set_durability(this);
  }
  ~MemoryLog() {
    shard_.state().set_write_observer(nullptr);
    for (int db = 0; db < Store::db_count; ++db) shard_.state().store().db(db).set_expire_hook(nullptr, nullptr);
    shard_.set_durability(nullptr);
  }
  void before_write(const Command&, CommandContext&) override {}
  void after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) override {
    AofBuffer staged;
    translate_write(cmd, ctx, reply, staged);
    append_from_shard(ctx.client.db, staged.bytes());
  }
  void log_block(const LoggedBlock& block) override {
    block.emit([this](int db, std::string_view records) { append_from_shard(db, records); });
  }
  void on_expired(int db, const Entry& entry) override {
    AofBuffer staged;
    expired_record(as_view(entry.key), staged);
    append_from_shard(db, staged.bytes());
  }
  bool request_rewrite(std::string& message) override { return message = "ERR no", false; }
  void info(std::string&) const override {}
  bool must_wait() const noexcept override { return false; }
  void wait(DurableWaiter& w) override { w.resume_(&w); }
  void forget(DurableWaiter&) noexcept override {}
  void append_from_shard(int db, std::string_view records) override { log.append_records(db, records); }

  AofBuffer log;

 private:
  struct Hook {
    MemoryLog* self;
    int db;
  };
  KvShard& shard_;
  std::array<Hook, Store::db_count> hooks_{};
};

std::string random_write(std::mt19937_64& rng) {
  auto key = [&] { return "k" + std::to_string(rng() % 10); };
  auto num = [&] { return std::to_string(rng() % 50); };
  switch (rng() % 12) {
    case 0: return resp({"SET", key(), num()});
    case 1: return resp({"INCR", key()});
    case 2: return resp({"APPEND", key(), "z"});
    case 3: return resp({"DEL", key(), key()});
    case 4: return resp({"MSET", key(), num(), key(), num(), key(), num()});
    case 5: return resp({"MSETNX", key(), num(), key(), num()});
    case 6: return resp({"RENAME", key(), key()});
    case 7: return resp({"RENAMENX", key(), key()});
    case 8: return resp({"PEXPIRE", key(), std::to_string(1'000'000 + rng() % 1000)});
    case 9: return resp({"SELECT", std::to_string(rng() % 2)});
    case 10: return resp({"GETDEL", key()});
    default: return resp({"SETNX", key(), num()});
  }
}

// Shards whose writes reach one MemoryLog on shard 0, as ShardedAof wires them.
struct LoggedShards {
  FakeShards fake;
  MemoryLog sink;
  std::vector<std::unique_ptr<AofFeed>> feeds;

  explicit LoggedShards(std::size_t n, std::uint64_t seed = 1) : fake(n, seed), sink(fake.cluster.shard(0)) {
    for (std::size_t s = 1; s < n; ++s) {
      feeds.push_back(std::make_unique<AofFeed>(fake.cluster.shard(s), 0, sink, [](std::string&) { return false; }));
      feeds.back()->install();
    }
  }
  // Every record the feeds still hold, on to the log.
  void close() {
    for (auto& feed : feeds) feed->uninstall();
    fake.pump();
  }
  // The log loaded into one fresh keyspace, on the shards' clock.
  std::unique_ptr<ServerState> replay() const {
    char path[] = "/tmp/duet-shard-aof-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    std::ofstream(path, std::ios::binary) << sink.log.bytes();
    auto replayed = std::make_unique<ServerState>();
    replayed->set_clock([now = fake.now] { return now; });
    const AofLoadResult loaded = load_aof(*replayed, path);
    std::remove(path);
    REQUIRE(loaded.status == AofLoadStatus::loaded);
    return replayed;
  }
  [[nodiscard]] aoftest::Dump dump() {
    aoftest::Dump sharded;
    for (std::size_t s = 0; s < fake.cluster.size(); ++s) {
      sharded.merge(aoftest::dump(fake.cluster.shard(s).state(), fake.now));
    }
    return sharded;
  }
};

}  // namespace

TEST_CASE("the log of a sharded keyspace replays on one shard to the data every shard holds", "[aof][shard]") {
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    const std::size_t n = 2 + seed % 3;
    LoggedShards shards(n, seed);
    FakeShards& fake = shards.fake;
    std::vector<std::unique_ptr<ShardClient>> clients;
    std::vector<ShardClient*> all;
    for (std::size_t c = 0; c < 2 * n; ++c) all.push_back(clients.emplace_back(std::make_unique<ShardClient>(fake, c % n)).get());
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 40; ++round) {
      for (ShardClient* c : all) {
        std::string pipeline;
        for (std::uint64_t k = 1 + rng() % 8; k > 0; --k) pipeline += random_write(rng);
        c->send(pipeline);
      }
      kvtest::settle(fake, all);
    }
    shards.close();
    INFO("seed " << seed << ", " << n << " shards");
    const aoftest::Dump sharded = shards.dump();
    CHECK(aoftest::dump(*shards.replay(), fake.now) == sharded);
    CHECK(sharded.size() > 3);
  }
}

TEST_CASE("an MSET or MSETNX with a value missing over two shards logs nothing", "[aof][shard]") {
  LoggedShards shards(2);
  const std::string a = shards.fake.key_on(0, "a");
  const std::string b = shards.fake.key_on(1, "b");
  ShardClient client(shards.fake, 0);
  client.send(resp({"MSET", a, "1", b}) + resp({"MSETNX", b, "1", a}) + resp({"MSETNX", a, "1", b}));
  kvtest::settle(shards.fake, {&client});
  shards.close();
  CHECK(shards.sink.log.bytes().empty());
  CHECK(shards.dump().empty());
}

// The job checks y on its shard, then applies there later. With a second
// clock reading at the apply, y had expired by then: its lazy expiry logged
// DEL y on y's shard, behind the job's RENAME record, and the replay deleted
// the renamed value the client was told is there.
TEST_CASE("a RENAME across shards onto a key whose TTL ends during the job replays to the renamed value",
          "[aof][shard]") {
  LoggedShards shards(2);
  FakeShards& fake = shards.fake;
  const std::string x = fake.key_on(0, "x");
  const std::string y = fake.key_on(1, "y");
  ShardClient client(fake, 0);
  client.send(resp({"SET", x, "renamed"}) + resp({"SET", y, "old", "PXAT", std::to_string(fake.now + 1)}));
  kvtest::settle(fake, {&client});
  REQUIRE(client.take() == "+OK\r\n+OK\r\n");
  client.send(resp({"RENAME", x, y}));  // reads x here, on the origin; y's part waits on shard 1
  REQUIRE(fake.step(1));                // y's part: y is alive
  fake.now += 2;                        // y's TTL ends before the job applies
  kvtest::settle(fake, {&client});
  CHECK(client.take() == "+OK\r\n");
  client.send(resp({"GET", y}));
  kvtest::settle(fake, {&client});
  CHECK(client.take() == "$7\r\nrenamed\r\n");
  shards.close();
  const std::unique_ptr<ServerState> replayed = shards.replay();
  CHECK(aoftest::dump(*replayed, fake.now) == shards.dump());
  const Entry* renamed = replayed->store().db(0).find(y, fake.now);
  REQUIRE(renamed != nullptr);
  CHECK(aoftest::text_of(renamed->value) == "renamed");
}
