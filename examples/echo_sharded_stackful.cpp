// echo_sharded_stackful — a TCP echo server on N threads, stackful voice.
//
//   echo_sharded_stackful [--port 7000] [--backend io_uring|epoll] [--threads 2] [--accept reuseport|single]
//   printf hello | nc -q1 127.0.0.1 7000
//
// One shard (thread and loop) per --threads. reuseport: each shard listens on
// the port and the kernel spreads connections; single: shard 0 accepts and
// hands each socket to the shards in turn. SIGINT/SIGTERM stops every shard
// cleanly, then the program prints how many connections each one served.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <duet/runtime/connection_spreader.hpp>
#include <duet/runtime/shard_set.hpp>
#include <duet/stackful/on_shard.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/signal_set.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>

namespace {

void echo(duet::fiber::TcpStream conn, std::stop_token stop) {
  char buf[16 * 1024];
  for (;;) {
    auto n = conn.recv(buf, stop);
    if (!n) return;  // EOF, error or stop: closing the stream is all we do
    if (!conn.send_all(std::span<const char>(buf, *n), stop)) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 7000;
  duet::Backend backend = duet::Backend::io_uring;
  std::size_t threads = 2;
  duet::AcceptMode mode = duet::AcceptMode::reuse_port;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--port") port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
    if (flag == "--backend") backend = duet::parse_backend(argv[i + 1]).value_or(backend);
    if (flag == "--threads") threads = std::max(1, std::atoi(argv[i + 1]));
    if (flag == "--accept") mode = duet::parse_accept_mode(argv[i + 1]).value_or(mode);
  }
  duet::fiber::Scheduler scheduler({.backend = backend});  // the main thread's, for the signals only
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});        // before the shards start: they inherit the mask
  duet::ConnectionSpreader spreader(threads, duet::SocketAddress::any(port), {.mode = mode});
  duet::ShardSet set({.shards = threads, .backend = backend}, duet::fiber::shard_runner());
  std::printf("echo on port %u (%s, %zu threads, %s)\n", spreader.port(), duet::backend_name(backend).data(), threads,
              duet::accept_mode_name(mode).data());
  std::fflush(stdout);
  for (std::size_t i = 0; i < threads; ++i) {
    duet::fiber::spawn_on(set.shard(i), [&] { duet::fiber::serve_shard(spreader, echo); });
  }
  (void)scheduler.spawn([&] { return signals.wait(); }).join();
  set.stop();  // every shard's stop token: accepts and echoes end, the threads join
  for (std::size_t i = 0; i < threads; ++i) std::printf("shard %zu: %zu connections\n", i, spreader.connections(i));
}
