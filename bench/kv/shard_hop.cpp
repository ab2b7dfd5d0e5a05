// shard_hop: the user-space cost of the sharded keyspace (kv/shard), for
// callgrind: one connection on shard 0 of a KvCluster runs redis-benchmark's
// GET/SET workload (or MGETs of 10 random keys), with every shard's messages
// run in this one thread, so instructions per request count the work of every
// shard — routing, batches, jobs, gates — without the kernel's wake-ups
// (shard_bench measures those).
//
//   valgrind --tool=callgrind ./shard_hop get 2000 16 2   # 2 shards: about half the keys elsewhere
//   valgrind --tool=callgrind ./shard_hop get 2000 16 1   # one shard: today's path
//   ./shard_hop mget 200 16 2
//
// Subtract a run with 0 batches to get the batches alone.
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "kv/session.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "session_workload.hpp"

namespace {

std::deque<duet::LoopMessage*> g_queue;  // every shard's messages, in send order

void post(void*, std::size_t, duet::LoopMessage& msg) noexcept { g_queue.push_back(&msg); }

std::vector<std::string> mget_batches(std::size_t per_batch, std::size_t pool) {
  std::uint64_t rng = 0x2545F4914F6CDD1Dull;
  std::vector<std::string> batches(pool);
  for (auto& batch : batches) {
    for (std::size_t i = 0; i < per_batch; ++i) {
      batch += "*11\r\n$4\r\nMGET\r\n";
      for (int k = 0; k < 10; ++k) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        batch += "$16\r\n" + bench::kv::key_name((rng >> 33) % bench::kv::key_range) + "\r\n";
      }
    }
  }
  return batches;
}

[[gnu::noinline]] std::size_t run_batches(duet::kv::Session& session, const std::vector<std::string>& batches,
                                          std::size_t count) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < count; ++i) {
    session.feed(batches[i % batches.size()]);
    for (;;) {
      std::string_view out = session.output();
      bytes += out.size();
      session.consume_output(out.size());
      if (!g_queue.empty()) {
        duet::LoopMessage* msg = g_queue.front();
        g_queue.pop_front();
        msg->run_(msg);
        continue;
      }
      if (session.wants_input()) break;
      session.process();
    }
  }
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s get|set|mget BATCHES [PER_BATCH=16] [SHARDS=2]\n", argv[0]);
    return 2;
  }
  const std::string_view mode = argv[1];
  const std::size_t count = std::strtoull(argv[2], nullptr, 10);
  const std::size_t per_batch = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 16;
  const std::size_t shards = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 2;
  duet::kv::KvCluster cluster(shards == 0 ? 1 : shards, {});
  cluster.set_transport(&post, nullptr);
  bool created = false;
  for (int i = 0; i < bench::kv::key_range; ++i) {
    const std::string key = bench::kv::key_name(static_cast<std::uint64_t>(i));
    cluster.shard(duet::kv::key_shard(key, cluster.size())).state().store().db(0).upsert(key, 0, created).value.set_string("xxx");
  }
  auto batches = mode == "mget" ? mget_batches(per_batch, bench::kv::batch_pool)
                                : bench::kv::make_batches(mode == "get", per_batch, bench::kv::batch_pool);
  std::size_t bytes = 0;
  {
    duet::kv::Session session(cluster.shard(0).state(), -1, &cluster.shard(0));
    bytes = run_batches(session, batches, count);
  }
  std::uint64_t commands = 0;
  for (std::size_t s = 0; s < cluster.size(); ++s) commands += cluster.shard(s).state().stats().commands_processed;
  std::printf("%s batches=%zu per_batch=%zu shards=%zu reply_bytes=%zu commands=%llu\n", argv[1], count, per_batch,
              cluster.size(), bytes, static_cast<unsigned long long>(commands));
  return 0;
}
