// echo_load — a closed-loop load generator for echo servers, written with duet.
//
//   echo_load --port 7000 [--host 127.0.0.1] [--connections 100] [--depth 1]
//             [--size 64] [--duration 10] [--warmup 2] [--backend io_uring] [--label name]
//
// Each connection keeps `depth` messages of `size` bytes in flight: it sends
// `depth`, then sends one more each time a full echo comes back. Latency is
// measured per message (send time of the oldest outstanding message to the
// arrival of its last byte) into a log-linear histogram, only after the warm-up.
// Prints one human line on stderr and one JSON object on stdout.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "bench/echo/histogram.hpp"
#include "io/event_loop.hpp"
#include "task/run.hpp"
#include "task/task_scope.hpp"
#include "task/tcp_stream.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 7000;
  int connections = 100;
  int depth = 1;
  std::size_t size = 64;
  double duration = 10;
  double warmup = 2;
  duet::Backend backend = duet::Backend::io_uring;
  std::string label = "echo";
};

struct Shared {
  Clock::time_point measure_from;
  Clock::time_point end;
  duet::bench::Histogram histogram;
  std::uint64_t requests = 0;
  int failures = 0;
};

duet::Task<void> connection(duet::EventLoop& loop, duet::SocketAddress addr, const Options& opt, Shared& shared) {
  auto conn = co_await duet::TcpStream::connect(loop, addr);
  if (!conn) {
    ++shared.failures;
    co_return;
  }
  const std::string message(opt.size, 'x');
  std::vector<char> buf(64 * 1024);
  std::deque<Clock::time_point> sent;
  std::size_t pending_bytes = 0;  // bytes of the oldest message already received
  for (int i = 0; i < opt.depth; ++i) {
    sent.push_back(Clock::now());
    if (!co_await conn->send_all(message)) co_return void(++shared.failures);
  }
  while (!sent.empty()) {
    auto n = co_await conn->recv(buf);
    if (!n) co_return void(++shared.failures);
    pending_bytes += *n;
    const auto now = Clock::now();
    while (pending_bytes >= opt.size && !sent.empty()) {
      pending_bytes -= opt.size;
      if (sent.front() >= shared.measure_from && now <= shared.end) {
        shared.histogram.record(static_cast<std::uint64_t>((now - sent.front()).count()));
        ++shared.requests;
      }
      sent.pop_front();
      if (now < shared.end) {
        sent.push_back(now);
        if (!co_await conn->send_all(message)) co_return void(++shared.failures);
      }
    }
  }
}

duet::Task<void> run(duet::EventLoop& loop, const Options& opt, Shared& shared) {
  const auto addr = duet::SocketAddress::parse(opt.host, opt.port).value();
  duet::TaskScope scope;
  for (int i = 0; i < opt.connections; ++i) scope.spawn(connection(loop, addr, opt, shared));
  co_await scope.join();
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view f = argv[i];
    const char* v = argv[i + 1];
    if (f == "--host") o.host = v;
    else if (f == "--port") o.port = static_cast<std::uint16_t>(std::atoi(v));
    else if (f == "--connections") o.connections = std::atoi(v);
    else if (f == "--depth") o.depth = std::max(1, std::atoi(v));
    else if (f == "--size") o.size = std::max<std::size_t>(1, std::strtoul(v, nullptr, 10));
    else if (f == "--duration") o.duration = std::atof(v);
    else if (f == "--warmup") o.warmup = std::atof(v);
    else if (f == "--backend") o.backend = duet::parse_backend(v).value_or(o.backend);
    else if (f == "--label") o.label = v;
    else std::fprintf(stderr, "unknown option %s\n", argv[i]);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  duet::EventLoop loop(opt.backend);
  Shared shared;
  const auto start = Clock::now();
  shared.measure_from = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.warmup));
  shared.end = shared.measure_from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration));
  duet::run_until_complete(loop, run(loop, opt, shared));
  const double rps = static_cast<double>(shared.requests) / opt.duration;
  const auto us = [&](double p) { return static_cast<double>(shared.histogram.percentile(p)) / 1000.0; };
  std::fprintf(stderr, "%s: %d conn x depth %d, %zu B: %.0f req/s, p50 %.1f us, p99 %.1f us, p99.9 %.1f us%s\n",
               opt.label.c_str(), opt.connections, opt.depth, opt.size, rps, us(50), us(99), us(99.9),
               shared.failures != 0 ? " (with failures)" : "");
  std::printf(
      "{\"label\":\"%s\",\"connections\":%d,\"depth\":%d,\"size\":%zu,\"duration_s\":%.3f,\"requests\":%llu,"
      "\"rps\":%.1f,\"p50_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"failures\":%d}\n",
      opt.label.c_str(), opt.connections, opt.depth, opt.size, opt.duration,
      static_cast<unsigned long long>(shared.requests), rps, us(50), us(99), us(99.9), shared.failures);
  return shared.failures == 0 ? 0 : 1;
}
