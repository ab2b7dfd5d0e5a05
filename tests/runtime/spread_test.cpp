// ConnectionSpreader with the stackless voice's serve_shard: a sharded echo
// server over two shards, both accept modes, both backends, end to end over
// loopback; each connection is served on the shard that adopted it.
#include <catch2/catch.hpp>
#include <stop_token>

#include "spread_checks.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/runtime/shard_set.hpp"
#include "duet/task/on_shard.hpp"
#include "duet/task/tcp_listener.hpp"

namespace {

duet::Task<void> echo(duet::TcpStream conn, std::stop_token stop) {
  char buf[256];
  for (;;) {
    auto n = co_await conn.recv(buf, stop);
    if (!n || !co_await conn.send_all(std::span<const char>(buf, *n), stop)) co_return;
  }
}

}  // namespace

TEST_CASE("a stackless sharded server spreads its connections over both shards in either accept mode", "[shard]") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  const duet::AcceptMode mode = GENERATE(duet::AcceptMode::reuse_port, duet::AcceptMode::single);
  INFO(duet::backend_name(backend) << ", " << duet::accept_mode_name(mode));
  constexpr int clients = 32;
  duet::ConnectionSpreader spreader(2, duet::SocketAddress::parse("127.0.0.1", 0).value(), {.mode = mode});
  duet::test::Served served{};
  duet::ShardSet set({.shards = 2, .backend = backend});
  for (std::size_t i = 0; i < 2; ++i) {
    duet::spawn_on(set.shard(i), [&] {
      return duet::serve_shard(spreader, [&](duet::TcpStream conn, std::stop_token stop) {
        served[duet::this_shard()->id()].fetch_add(1);
        return echo(std::move(conn), std::move(stop));
      });
    });
  }
  duet::test::check_spread(set, spreader, served, clients);
}

TEST_CASE("accept modes parse from their command-line names", "[shard]") {
  CHECK(duet::parse_accept_mode("reuseport") == duet::AcceptMode::reuse_port);
  CHECK(duet::parse_accept_mode("single") == duet::AcceptMode::single);
  CHECK_FALSE(duet::parse_accept_mode("both").has_value());
  CHECK(duet::accept_mode_name(duet::AcceptMode::single) == "single");
}
