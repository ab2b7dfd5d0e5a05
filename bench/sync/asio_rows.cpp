// sync_bench's Asio row (Asio 1.22, Debian libasio-dev): sync/channel_pingpong
// (channel_rows.hpp) on asio::experimental::channel with C++20 awaitables
// (use_awaitable), both coroutines co_spawned on one io_context run by this
// thread (concurrency hint 1). The peer of sync/channel_pingpong/duet_task.
// Built only when asio.hpp is found.
#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/channel.hpp>

#include <benchmark/benchmark.h>

#include "channel_rows.hpp"
#include "handoff_round.hpp"

namespace {

using duet::bench::HandoffRound;
using Channel = asio::experimental::channel<void(asio::error_code, int)>;

asio::awaitable<void> asio_pinger(Channel& ping, Channel& pong, HandoffRound& round) {
  int v = 0;
  while (round.next()) {
    co_await ping.async_send(asio::error_code{}, v, asio::use_awaitable);
    v = co_await pong.async_receive(asio::use_awaitable);
  }
  ping.close();  // the ponger's receive fails: it leaves
}

asio::awaitable<void> asio_ponger(Channel& ping, Channel& pong) {
  for (;;) {
    auto [error, v] = co_await ping.async_receive(asio::experimental::as_tuple(asio::use_awaitable));
    if (error) break;
    co_await pong.async_send(asio::error_code{}, v + 1, asio::use_awaitable);
  }
}

void channel_pingpong_asio(benchmark::State& state) {
  asio::io_context context(1);
  Channel ping(context, 1);
  Channel pong(context, 1);
  HandoffRound round(state);
  asio::co_spawn(context, asio_ponger(ping, pong), asio::detached);
  asio::co_spawn(context, asio_pinger(ping, pong, round), asio::detached);
  context.run();
}

}  // namespace

SYNC_BENCHMARK("sync/channel_pingpong/asio", channel_pingpong_asio);
