// ConnectionSpreader with the stackful voice's fiber::serve_shard: a sharded echo
// server over two shards, both accept modes, both backends, end to end over
// loopback; each connection is served on the shard that adopted it.
#include <catch2/catch.hpp>
#include <stop_token>

#include "spread_checks.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/runtime/shard_set.hpp"
#include "duet/stackful/on_shard.hpp"
#include "duet/stackful/tcp_listener.hpp"

namespace {

void echo(duet::fiber::TcpStream conn, std::stop_token stop) {
  char buf[256];
  for (;;) {
    auto n = conn.recv(buf, stop);
    if (!n || !conn.send_all(std::span<const char>(buf, *n), stop)) return;
  }
}

}  // namespace

TEST_CASE("a stackful sharded server spreads its connections over both shards in either accept mode",
          "[shard_fiber]") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  const duet::AcceptMode mode = GENERATE(duet::AcceptMode::reuse_port, duet::AcceptMode::single);
  INFO(duet::backend_name(backend) << ", " << duet::accept_mode_name(mode));
  constexpr int clients = 32;
  duet::ConnectionSpreader spreader(2, duet::SocketAddress::parse("127.0.0.1", 0).value(), {.mode = mode});
  duet::test::Served served{};
  duet::ShardSet set({.shards = 2, .backend = backend}, duet::fiber::shard_runner());
  for (std::size_t i = 0; i < 2; ++i) {
    duet::fiber::spawn_on(set.shard(i), [&] {
      duet::fiber::serve_shard(spreader, [&](duet::fiber::TcpStream conn, std::stop_token stop) {
        served[duet::this_shard()->id()].fetch_add(1);
        echo(std::move(conn), std::move(stop));
      });
    });
  }
  duet::test::check_spread(set, spreader, served, clients);
}
