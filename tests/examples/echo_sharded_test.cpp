// End-to-end tests of the sharded echo examples (examples/echo_sharded_*.cpp):
// both executables, both backends, both accept modes, --threads 2, spoken to
// over loopback by blocking sockets with receive timeouts. The programs print
// each shard's connection count after a SIGTERM: both shards must have served.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../runtime/echo_clients.hpp"
#include "example_server.hpp"

namespace {

// "shard 0: 16 connections" lines -> counts by shard.
std::vector<int> per_shard(const std::vector<std::string>& lines) {
  std::vector<int> counts;
  for (const std::string& line : lines) {
    int shard = 0;
    int count = 0;
    if (std::sscanf(line.c_str(), "shard %d: %d connections", &shard, &count) == 2) counts.push_back(count);
  }
  return counts;
}

}  // namespace

TEST_CASE("the sharded echo examples serve connections on both shards and stop cleanly on SIGTERM",
          "[examples][echo_sharded]") {
  const char* voice = GENERATE("DUET_ECHO_SHARDED_STACKLESS", "DUET_ECHO_SHARDED_STACKFUL");
  const std::string backend = GENERATE("io_uring", "epoll");
  const std::string mode = GENERATE("reuseport", "single");
  const char* exe = std::getenv(voice);
  REQUIRE(exe != nullptr);
  INFO(exe << " --backend " << backend << " --accept " << mode);
  constexpr int clients = 32;
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend, "--threads", "2", "--accept", mode});
  auto conns = duet::test::open_echoed(static_cast<std::uint16_t>(server.port()), clients);
  CHECK(conns.size() == clients);
  conns.resize(clients / 2);  // the other half stays connected through the stop
  CHECK(server.stop() == 0);
  const std::vector<int> counts = per_shard(server.rest());
  REQUIRE(counts.size() == 2);
  CHECK(counts[0] + counts[1] == clients);
  CHECK(counts[0] > 0);
  CHECK(counts[1] > 0);
}
