// session_batch: feeds N pipelined batches of GET or SET commands (or of one
// of redis-benchmark's type tests: lpush rpush lpop rpop sadd hset spop
// lrange_100) through one duet::kv::Session, for callgrind (deterministic
// instruction counts):
//
//   valgrind --tool=callgrind ./session_batch get 2000 [per_batch=16] [check]
//   valgrind --tool=callgrind ./session_batch sadd 2000
//
// Run once with 0 batches and subtract to get the batch loop alone, or read
// run_batches' inclusive cost. With "check" it prints a checksum of all reply
// bytes (costing instructions of its own), so an optimisation that changes a
// reply shows up.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kv/session.hpp"
#include "session_workload.hpp"

namespace {

[[gnu::noinline]] std::uint64_t run_batches(duet::kv::Session& session, const std::vector<std::string>& batches,
                                            std::size_t count, bool check) {
  std::uint64_t checksum = 1469598103934665603ull;  // FNV-1a over the replies
  for (std::size_t i = 0; i < count; ++i) {
    session.feed(batches[i % batches.size()]);
    std::string_view out = session.output();
    if (check) {
      for (char c : out) checksum = (checksum ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    session.consume_output(out.size());
  }
  return checksum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s get|set|lpush|rpush|lpop|rpop|sadd|hset|spop|lrange_100 BATCHES [PER_BATCH=16] [check]\n", argv[0]);
    return 2;
  }
  std::string_view mode = argv[1];
  std::size_t count = std::strtoull(argv[2], nullptr, 10);
  std::size_t per_batch = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 16;
  bool check = argc > 4 && std::string_view(argv[4]) == "check";
  duet::kv::ServerState state;  // the system clock, as in the server
  bench::kv::preload(state);
  duet::kv::Session session(state);
  std::vector<std::string> batches;
  if (mode == "get" || mode == "set") {
    batches = bench::kv::make_batches(mode == "get", per_batch, bench::kv::batch_pool);
  } else if (!bench::kv::type_test_command(mode).empty()) {
    bench::kv::preload_types(session, count * per_batch + 100);
    batches = bench::kv::make_type_batches(mode, per_batch, bench::kv::batch_pool);
  } else {
    std::fprintf(stderr, "unknown test: %s\n", argv[1]);
    return 2;
  }
  std::uint64_t checksum = run_batches(session, batches, count, check);
  std::printf("%s batches=%zu per_batch=%zu checksum=%016llx commands=%llu\n", argv[1], count, per_batch,
              static_cast<unsigned long long>(checksum),
              static_cast<unsigned long long>(state.stats().commands_processed));
  return 0;
}
