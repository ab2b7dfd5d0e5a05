// echo_load — a closed-loop load generator for echo servers, written with duet.
//
//   echo_load --port 7000 [--host 127.0.0.1] [--connections 100] [--depth 1]
//             [--size 64] [--duration 10] [--warmup 2] [--backend io_uring] [--label name]
//             [--resp ping|get|set|multi|multi3] [--keys 100000] [--pipeline 1]
//
// Each connection keeps `depth` messages of `size` bytes in flight: it sends
// `depth`, then sends one more each time a full echo comes back. With --resp it
// speaks RESP to a Redis-protocol server instead: each message is a PING, a GET
// or a SET (value of `size` bytes) of a random key among `keys` (named like
// redis-benchmark's, key:000000000042), and a message is done when its whole
// reply has arrived. Latency is
// measured per message (send time of the oldest outstanding message to the
// arrival of its last byte) into a log-linear histogram, only after the warm-up.
// --pipeline N is redis-benchmark's -P instead of --depth: N requests leave in
// one write and the next batch leaves once all N replies are in; each request
// counts its batch's latency. One syscall pair per N requests lets the client
// out-run the server, so the server is what a run measures.
// Prints one human line on stderr and one JSON object on stdout.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <random>
#include <cstdlib>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "bench/echo/cli_args.hpp"
#include "bench/echo/histogram.hpp"
#include "bench/echo/resp_replies.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_stream.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options : duet::bench::ClientFlags {
  Options() { label = "echo"; }
  int connections = 100;
  int depth = 1;
  int pipeline = 1;
  std::size_t size = 64;
  double warmup = 2;
  std::string resp;  // empty: echo; else ping, get, set, multi or multi3
  std::uint32_t keys = 100000;
};

// What one connection sends and how it knows a message is answered.
class Protocol {
 public:
  Protocol(const Options& opt, std::uint32_t seed) : opt_(opt), rng_(seed), value_(opt.size, 'x') {}

  // The bytes of the next request.
  std::string_view next() {
    if (opt_.resp.empty()) return value_;
    if (opt_.resp == "ping") return "*1\r\n$4\r\nPING\r\n";
    if (opt_.resp == "multi" || opt_.resp == "multi3") return transaction();
    char key[32];
    int key_len = std::snprintf(key, sizeof key, "key:%012u", static_cast<unsigned>(rng_() % opt_.keys));
    request_.clear();
    request_ += opt_.resp == "get" ? "*2\r\n$3\r\nGET\r\n" : "*3\r\n$3\r\nSET\r\n";
    // Appends only: `"$" + std::to_string(n)` trips GCC 12's -Wrestrict false positive.
    request_.append("$").append(std::to_string(key_len)).append("\r\n");
    request_.append(key, static_cast<std::size_t>(key_len)).append("\r\n");
    if (opt_.resp == "set") {
      request_.append("$").append(std::to_string(value_.size())).append("\r\n").append(value_).append("\r\n");
    }
    return request_;
  }
  // How many messages the received bytes complete; -1 on a reply it cannot frame.
  long answered(std::string_view received) {
    if (!opt_.resp.empty()) {
      std::size_t done = replies_.feed(received);
      if (replies_.malformed()) return -1;
      if (opt_.resp != "multi" && opt_.resp != "multi3") return static_cast<long>(done);
      replies_in_tx_ += done;  // +OK, 3 x +QUEUED, *3 and its 3 elements
      const auto whole = static_cast<long>(replies_in_tx_ / 8);
      replies_in_tx_ %= 8;
      return whole;
    }
    echoed_ += received.size();
    auto done = static_cast<long>(echoed_ / opt_.size);
    echoed_ %= opt_.size;
    return done;
  }

 private:
  // MULTI, three commands, EXEC: one message. multi: all on one hash key (one
  // shard); multi3: SET, INCR and GET of three keys (with --threads N,
  // usually on several shards).
  std::string_view transaction() {
    auto key = [&](const char* prefix) {
      char k[40];
      int n = std::snprintf(k, sizeof k, "%s%012u", prefix, static_cast<unsigned>(rng_() % opt_.keys));
      return std::string(k, static_cast<std::size_t>(n));
    };
    auto command = [&](std::initializer_list<std::string_view> args) {
      request_.append("*").append(std::to_string(args.size())).append("\r\n");
      for (std::string_view a : args) request_.append("$").append(std::to_string(a.size())).append("\r\n").append(a).append("\r\n");
    };
    request_.clear();
    command({"MULTI"});
    if (opt_.resp == "multi") {
      const std::string h = key("hash:");
      command({"HSET", h, "field", value_});
      command({"HINCRBY", h, "count", "1"});
      command({"HGET", h, "field"});
    } else {
      const std::string a = key("a:"), b = key("b:"), c = key("c:");
      command({"SET", a, value_});
      command({"INCR", b});
      command({"GET", c});
    }
    command({"EXEC"});
    return request_;
  }

  const Options& opt_;
  std::size_t replies_in_tx_ = 0;
  std::minstd_rand rng_;
  std::string value_;
  std::string request_;
  duet::bench::RespReplies replies_;
  std::size_t echoed_ = 0;
};

struct Shared {
  Clock::time_point measure_from;
  Clock::time_point end;
  duet::bench::Histogram histogram;
  std::uint64_t requests = 0;
  std::uint32_t next_seed = 1;
  int failures = 0;
};

duet::Task<void> batches(duet::TcpStream& conn, Protocol& protocol, const Options& opt, Shared& shared) {
  std::vector<char> buf(64 * 1024);
  std::string batch;
  while (Clock::now() < shared.end) {
    batch.clear();
    for (int i = 0; i < opt.pipeline; ++i) batch += protocol.next();
    const auto start = Clock::now();
    if (!co_await conn.send_all(batch)) co_return void(++shared.failures);
    for (long left = opt.pipeline; left > 0;) {
      auto n = co_await conn.recv(buf);
      if (!n) co_return void(++shared.failures);
      const long done = protocol.answered({buf.data(), *n});
      if (done < 0) co_return void(++shared.failures);
      left -= done;
    }
    const auto now = Clock::now();
    if (start >= shared.measure_from && now <= shared.end) {
      shared.histogram.record(static_cast<std::uint64_t>((now - start).count()), static_cast<std::uint64_t>(opt.pipeline));
      shared.requests += static_cast<std::uint64_t>(opt.pipeline);
    }
  }
}

duet::Task<void> connection(duet::EventLoop& loop, duet::SocketAddress addr, const Options& opt, Shared& shared) {
  auto conn = co_await duet::TcpStream::connect(loop, addr);
  if (!conn) {
    ++shared.failures;
    co_return;
  }
  Protocol protocol(opt, static_cast<std::uint32_t>(shared.requests + shared.next_seed++));
  if (opt.pipeline > 1) co_return co_await batches(*conn, protocol, opt, shared);
  std::vector<char> buf(64 * 1024);
  std::deque<Clock::time_point> sent;
  for (int i = 0; i < opt.depth; ++i) {
    sent.push_back(Clock::now());
    if (!co_await conn->send_all(protocol.next())) co_return void(++shared.failures);
  }
  while (!sent.empty()) {
    auto n = co_await conn->recv(buf);
    if (!n) co_return void(++shared.failures);
    long done = protocol.answered({buf.data(), *n});
    if (done < 0) co_return void(++shared.failures);
    const auto now = Clock::now();
    for (; done > 0 && !sent.empty(); --done) {
      if (sent.front() >= shared.measure_from && now <= shared.end) {
        shared.histogram.record(static_cast<std::uint64_t>((now - sent.front()).count()));
        ++shared.requests;
      }
      sent.pop_front();
      if (now < shared.end) {
        sent.push_back(now);
        if (!co_await conn->send_all(protocol.next())) co_return void(++shared.failures);
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

constexpr const char* usage =
    "--port N [--host ADDR] [--connections 1-10000] [--depth 1-1024]\n"
    "  [--size 1-1048576] [--duration S] [--warmup S] [--backend io_uring|epoll] [--label NAME]\n"
    "  [--resp ping|get|set|multi|multi3] [--keys 1-100000000] [--pipeline 1-1024]\n";

Options parse(int argc, char** argv) {
  Options o;
  const duet::bench::CliArgs args(argv[0], usage);
  args.parse(argc, argv, o, [&](std::string_view f, const char* v) {
    const std::string_view s = v;
    if (f == "--connections") o.connections = static_cast<int>(args.number(f, v, 1, 10000));
    else if (f == "--depth") o.depth = static_cast<int>(args.number(f, v, 1, 1024));
    else if (f == "--pipeline") o.pipeline = static_cast<int>(args.number(f, v, 1, 1024));
    else if (f == "--size") o.size = static_cast<std::size_t>(args.number(f, v, 1, 1 << 20));
    else if (f == "--keys") o.keys = static_cast<std::uint32_t>(args.number(f, v, 1, 100000000));
    else if (f == "--warmup") o.warmup = args.seconds(f, v);
    else if (f == "--resp" && (s == "ping" || s == "get" || s == "set" || s == "multi" || s == "multi3")) o.resp = v;
    else return false;
    return true;
  });
  if (o.depth > 1 && o.pipeline > 1) args.fail("--depth and --pipeline exclude each other");
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
  std::fprintf(stderr, "%s: %d conn x depth %d x pipeline %d, %zu B: %.0f req/s, p50 %.1f us, p99 %.1f us, p99.9 %.1f us%s\n",
               opt.label, opt.connections, opt.depth, opt.pipeline, opt.size, rps, us(50), us(99), us(99.9),
               shared.failures != 0 ? " (with failures)" : "");
  std::printf(
      "{\"label\":\"%s\",\"connections\":%d,\"depth\":%d,\"pipeline\":%d,\"size\":%zu,\"duration_s\":%.3f,\"requests\":%llu,"
      "\"rps\":%.1f,\"p50_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"failures\":%d}\n",
      opt.label, opt.connections, opt.depth, opt.pipeline, opt.size, opt.duration,
      static_cast<unsigned long long>(shared.requests), rps, us(50), us(99), us(99.9), shared.failures);
  return shared.failures == 0 ? 0 : 1;
}
