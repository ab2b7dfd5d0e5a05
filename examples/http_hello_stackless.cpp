// http_hello_stackless — the HTTP benchmark's server in the stackless voice:
// GET / answers 200 "hello", keep-alive.
//
//   http_hello_stackless [--port 8080] [--backend io_uring|epoll] [--threads 1]
//   curl http://127.0.0.1:8080/
//
// One shard (thread and loop) per --threads, each accepting on the port
// (SO_REUSEPORT) and serving its connections with one HttpServer; SIGINT or
// SIGTERM stops them gracefully (requests in progress are answered).
#include <csignal>
#include <cstdio>

#include <duet/io/event_loop.hpp>
#include <duet/runtime/connection_spreader.hpp>
#include <duet/runtime/shard_set.hpp>
#include <duet/task/http_server.hpp>
#include <duet/task/on_shard.hpp>
#include <duet/task/run.hpp>
#include <duet/task/signal_set.hpp>
#include <duet/task/tcp_listener.hpp>

#include "server_flags.hpp"

namespace {

duet::Task<duet::http::Response> hello(duet::http::Request&) { co_return duet::http::Response::text(200, "hello"); }

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8080, "http_hello_stackless");
  duet::HttpServer server;
  server.get("/", hello);
  duet::EventLoop loop(flags.backend);                // the main thread's, for the signals only
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});  // before the shards start: they inherit the mask
  duet::ConnectionSpreader spreader(flags.threads, duet::SocketAddress::any(flags.port));
  duet::ShardSet set({.shards = flags.threads, .backend = flags.backend});
  std::printf("http on port %u (%s, %zu threads)\n", spreader.port(), duet::backend_name(flags.backend).data(),
              flags.threads);
  std::fflush(stdout);
  for (std::size_t i = 0; i < flags.threads; ++i) {
    duet::spawn_on(set.shard(i), [&] {
      return duet::serve_shard(spreader, [&server](duet::TcpStream conn, std::stop_token stop) {
        return server.serve_connection(std::move(conn), std::move(stop));
      });
    });
  }
  (void)duet::run_until_complete(loop, signals.wait_task());
  set.stop();  // every shard's stop token: accepting ends, connections finish their request and close
}
