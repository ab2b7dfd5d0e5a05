// shard_bench's Asio row (Asio 1.22, Debian libasio-dev): shard/roundtrip/asio,
// the peer of shard/roundtrip/duet_task. Two io_contexts (concurrency hint 1),
// one per thread, as two shards: the benchmark thread runs "home", a thread
// of its own runs "peer"; each iteration posts a handler to peer that posts
// one back to home, and home.run_one() waits for it (blocking in epoll_wait
// like a sleeping shard, woken by Asio's eventfd). Built only when asio.hpp is.
#include <asio.hpp>

#include <benchmark/benchmark.h>

#include <thread>

namespace {

void roundtrip_asio(benchmark::State& state) {
  asio::io_context home(1);
  asio::io_context peer(1);
  auto home_work = asio::make_work_guard(home);  // run_one blocks instead of returning
  auto peer_work = asio::make_work_guard(peer);
  std::thread peer_thread([&] { peer.run(); });
  for (auto _ : state) {
    bool back = false;
    asio::post(peer, [&] { asio::post(home, [&] { back = true; }); });
    while (!back) home.run_one();
  }
  peer_work.reset();
  peer.stop();
  peer_thread.join();
}

}  // namespace

BENCHMARK(roundtrip_asio)->Name("shard/roundtrip/asio")->UseRealTime();
