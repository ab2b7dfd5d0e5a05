// tls_handshake_load: TLS handshakes per second against a Redis-protocol
// server's TLS port. Each of --connections fibers loops connect → handshake →
// PING → +PONG → close_notify → close for --duration seconds. Every handshake
// is a full one, unless --resume 1: then each offers the session (TLS 1.3
// ticket) its context got last time. Prints one JSON line:
//   {"handshakes": N, "failures": F, "seconds": S, "hps": N/S}
// Usage: tls_handshake_load --port P --ca ca.crt [--cert c.crt --key c.key]
//        [--connections 8] [--duration 3] [--backend io_uring|epoll] [--resume 1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <functional>

#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/tls_stream.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Args {
  int port = 6380;
  int connections = 8;
  double duration = 3;
  std::string ca, cert, key, backend = "io_uring";
  bool resume = false;
};

struct Counts {
  long handshakes = 0;
  long failures = 0;
};

bool one_round(const duet::SocketAddress& addr, const duet::TlsContext& ctx) {
  auto tls = duet::fiber::TlsStream::connect(addr, ctx, "localhost", 5s);
  if (!tls) return false;
  if (!tls->send_all(std::string_view("*1\r\n$4\r\nPING\r\n"), 5s)) return false;
  char reply[16];
  auto n = tls->recv(reply, 5s);
  if (!n || std::string_view(reply, *n) != "+PONG\r\n") return false;
  (void)tls->shutdown(1s);
  return true;
}

void worker(duet::SocketAddress addr, const duet::TlsContext& ctx, Clock::time_point until, Counts& counts) {
  while (Clock::now() < until) {
    if (one_round(addr, ctx)) {
      ++counts.handshakes;
    } else {
      ++counts.failures;
    }
  }
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--port") a.port = std::atoi(v);
    else if (k == "--connections") a.connections = std::atoi(v);
    else if (k == "--duration") a.duration = std::atof(v);
    else if (k == "--ca") a.ca = v;
    else if (k == "--cert") a.cert = v;
    else if (k == "--key") a.key = v;
    else if (k == "--backend") a.backend = v;
    else if (k == "--resume") a.resume = std::string_view(v) == "1";
    else std::fprintf(stderr, "tls_handshake_load: unknown option %s\n", argv[i]), std::exit(2);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  duet::TlsOptions o;
  o.ca_file = a.ca;
  o.cert_chain_file = a.cert;
  o.key_file = a.key;
  o.session_resumption = a.resume;  // off: every handshake is a full one
  const duet::TlsContext ctx(o);
  duet::fiber::Scheduler scheduler({.backend = duet::parse_backend(a.backend).value_or(duet::Backend::io_uring)});
  Counts counts;
  const auto start = Clock::now();
  const auto addr = duet::SocketAddress::parse("127.0.0.1", static_cast<std::uint16_t>(a.port)).value();
  const auto until = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.duration));
  for (int i = 0; i < a.connections; ++i) scheduler.spawn(worker, addr, std::cref(ctx), until, std::ref(counts)).detach();
  scheduler.run();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("{\"handshakes\": %ld, \"failures\": %ld, \"seconds\": %.3f, \"hps\": %.1f}\n", counts.handshakes,
              counts.failures, secs, counts.handshakes / secs);
  return counts.handshakes > 0 ? 0 : 1;
}
