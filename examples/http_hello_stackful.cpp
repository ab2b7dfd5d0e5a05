// http_hello_stackful — the HTTP benchmark's server in the stackful voice:
// GET / answers 200 "hello", keep-alive; a fiber per connection.
//
//   http_hello_stackful [--port 8080] [--backend io_uring|epoll] [--threads 1]
//   curl http://127.0.0.1:8080/
//
// One shard (thread, scheduler and loop) per --threads, each accepting on the
// port (SO_REUSEPORT) and serving its connections with one fiber::HttpServer;
// SIGINT or SIGTERM stops them gracefully (requests in progress are answered).
#include <csignal>
#include <cstdio>

#include <duet/runtime/connection_spreader.hpp>
#include <duet/runtime/shard_set.hpp>
#include <duet/stackful/http_server.hpp>
#include <duet/stackful/on_shard.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/signal_set.hpp>
#include <duet/stackful/tcp_listener.hpp>

#include "server_flags.hpp"

namespace {

duet::http::Response hello(duet::http::Request&) { return duet::http::Response::text(200, "hello"); }

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8080, "http_hello_stackful");
  duet::fiber::HttpServer server;
  server.get("/", hello);
  duet::fiber::Scheduler scheduler({.backend = flags.backend});  // the main thread's, for the signals only
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});              // before the shards start: they inherit the mask
  duet::ConnectionSpreader spreader(flags.threads, duet::SocketAddress::any(flags.port));
  duet::ShardSet set({.shards = flags.threads, .backend = flags.backend}, duet::fiber::shard_runner());
  std::printf("http on port %u (%s, %zu threads)\n", spreader.port(), duet::backend_name(flags.backend).data(),
              flags.threads);
  std::fflush(stdout);
  for (std::size_t i = 0; i < flags.threads; ++i) {
    duet::fiber::spawn_on(set.shard(i), [&] {
      duet::fiber::serve_shard(spreader, [&server](duet::fiber::TcpStream conn, std::stop_token stop) {
        server.serve_connection(std::move(conn), std::move(stop));
      });
    });
  }
  (void)scheduler.spawn([&] { return signals.wait(); }).join();
  set.stop();  // every shard's stop token: accepting ends, connections finish their request and close
}
