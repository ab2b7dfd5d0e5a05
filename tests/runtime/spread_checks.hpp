// The checks shared by both voices' sharded echo tests (spread_test.cpp,
// fiber_spread_test.cpp): with the set serving, open n echoed connections,
// leave half of them open through set.stop(), then check that every
// connection was adopted once, both shards got some (single mode: exactly
// half each, round robin), and each was served on the shard that adopted it
// (served[i]: the handler's own count on shard i).
#pragma once

#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstddef>

#include "echo_clients.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/runtime/shard_set.hpp"

namespace duet::test {

using Served = std::array<std::atomic<std::size_t>, 2>;

inline void check_spread(ShardSet& set, const ConnectionSpreader& spreader, const Served& served, int clients) {
  auto conns = open_echoed(spreader.port(), clients);
  CHECK(conns.size() == static_cast<std::size_t>(clients));
  conns.resize(static_cast<std::size_t>(clients / 2));  // the rest stay open through the stop
  set.stop();  // the shards' stop tokens end the accepts and the echoes
  CHECK(spreader.connections(0) + spreader.connections(1) == static_cast<std::size_t>(clients));
  CHECK(spreader.connections(0) > 0);
  CHECK(spreader.connections(1) > 0);  // 2^-(clients-1) to fail by the kernel's hash (reuseport)
  CHECK(served[0] == spreader.connections(0));
  CHECK(served[1] == spreader.connections(1));
  if (spreader.mode() == AcceptMode::single) CHECK(spreader.connections(1) == static_cast<std::size_t>(clients / 2));
}

}  // namespace duet::test
