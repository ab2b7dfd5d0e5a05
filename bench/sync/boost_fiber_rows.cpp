// sync_bench's Boost.Fiber rows (Boost 1.74, Debian libboost-fiber-dev): the
// peer of duet's rows in duet_rows.cpp, with the same workload per hand-off:
//   lock; yield; unlock; yield
// on boost::fibers::mutex, fibers on the main thread's default round_robin
// scheduler, joined from main; and sync/channel_pingpong (channel_rows.hpp) on
// boost::fibers::buffered_channel. Built only when Boost.Fiber is found.
#include <boost/fiber/all.hpp>

#include <vector>

#include <benchmark/benchmark.h>

#include "channel_rows.hpp"
#include "handoff_round.hpp"

namespace {

using duet::bench::HandoffRound;

void mutex_handoff_boost_fiber(benchmark::State& state) {
  boost::fibers::mutex mutex;
  HandoffRound round(state);
  std::vector<boost::fibers::fiber> fibers;
  for (int i = 0; i < state.range(0); ++i) {
    fibers.emplace_back([&mutex, &round, i] {
      while (!round.done()) {
        std::unique_lock lock(mutex);
        if (!round.acquired(i)) break;
        boost::this_fiber::yield();
        lock.unlock();
        boost::this_fiber::yield();
      }
    });
  }
  for (auto& f : fibers) f.join();
}

// buffered_channel's capacity is a power of two and holds one value fewer.
void channel_pingpong_boost_fiber(benchmark::State& state) {
  boost::fibers::buffered_channel<int> ping(2);
  boost::fibers::buffered_channel<int> pong(2);
  HandoffRound round(state);
  boost::fibers::fiber ponger([&] {
    int v = 0;
    while (ping.pop(v) == boost::fibers::channel_op_status::success) pong.push(v + 1);
  });
  boost::fibers::fiber pinger([&] {
    int v = 0;
    while (round.next()) {
      ping.push(v);
      pong.pop(v);
    }
    ping.close();
  });
  pinger.join();
  ponger.join();
}

}  // namespace

SYNC_BENCHMARK("sync/mutex_handoff/boost_fiber", mutex_handoff_boost_fiber)->Arg(2)->Arg(8);
SYNC_BENCHMARK("sync/channel_pingpong/boost_fiber", channel_pingpong_boost_fiber);
