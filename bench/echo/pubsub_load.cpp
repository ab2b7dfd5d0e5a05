// pubsub_load — a pub/sub fan-out load generator for Redis-protocol servers,
// written with duet (stackless, one thread).
//
//   pubsub_load --port 6379 [--host 127.0.0.1] [--subscribers 1000] [--size 16]
//               [--pipeline 16] [--duration 3] [--messages 0] [--drain 5]
//               [--channel duet-fanout] [--server-pid PID] [--backend io_uring] [--label name]
//
// 1. Connects --subscribers connections (at most 64 setting up at once, so the
//    server's accept queue never overflows into SYN retries) and SUBSCRIBEs each
//    to one channel, checking each confirmation (*3 subscribe <channel> :1). The
//    first subscriber goes alone: a server without pub/sub is told apart at once.
// 2. One publisher connection PUBLISHes --size-byte messages in rounds of
//    --pipeline, one write per round, for --duration seconds or --messages
//    messages. The next round leaves once every message of this one is answered
//    AND every subscriber has it (total deliveries = published × subscribers):
//    a PUBLISH reply is no delivery receipt, and a server that answers before it
//    sends would otherwise let the publisher run ahead and batch more than
//    another server given the same pipeline. Each reply (the receiver count)
//    must equal --subscribers; their sum is checked against published × subscribers.
// 3. The subscribers parse and count every `message` push (*3 message <channel>
//    <payload>). A round whose messages have not all arrived --drain seconds
//    after its last reply ends the run ("stalled"); what is missing is `lost`.
//
// delivered_per_s is delivered ÷ (first PUBLISH sent → last message received).
// messages_per_recv is delivered ÷ the subscribers' recvs that brought messages:
// how many messages the server's sends carry at least (recv may join sends).
// With --server-pid, the server's CPU time (utime + stime of all its threads,
// /proc/PID/stat) over that same interval is reported, and per delivered message.
//
// Prints one JSON line on stdout (with "error" when the run failed) and a human
// line on stderr. Exit status: 0 ok, 1 failed (no server, refused, bad reply,
// timed out), 2 usage, 3 the server has no pub/sub (it answered SUBSCRIBE with an error).
// Every wait has a deadline: a run never outlives setup + duration + drain + 20 s.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "bench/echo/cli_args.hpp"
#include "bench/echo/json_line.hpp"
#include "bench/echo/resp_frames.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/event.hpp"
#include "duet/task/latch.hpp"
#include "duet/task/run.hpp"
#include "duet/task/semaphore.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/with_timeout.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
using duet::bench::RespFrame;
using duet::bench::RespFrames;

constexpr auto reply_timeout = 10s;  // a server that stalls this long has failed the run
constexpr int setup_slots = 64;      // subscribers connecting and subscribing at once

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

struct Options : duet::bench::ClientFlags {
  Options() {
    port = 6379;
    duration = 3;
    label = "pubsub";
  }
  int subscribers = 1000;
  std::size_t size = 16;
  int pipeline = 16;
  std::uint64_t messages = 0;  // 0: until --duration
  double drain = 5;
  const char* channel = "duet-fanout";
  long server_pid = 0;
};

struct Shared {
  explicit Shared(duet::EventLoop& loop) : delivered_all(loop) {}
  int confirmed = 0;           // subscribers whose SUBSCRIBE was confirmed
  int disconnected = 0;        // confirmed subscribers the server closed on
  int failures = 0;
  bool unsupported = false;    // the server answered SUBSCRIBE with an error
  std::string first_error;
  std::uint64_t published = 0, replies = 0, receivers_sum = 0, receivers_mismatch = 0;
  std::uint64_t delivered = 0, min_delivered = UINT64_MAX;
  std::uint64_t batches = 0;   // subscriber recvs that brought messages: the server's sends, at most
  std::uint64_t wake_at = UINT64_MAX;  // the publisher waits for this many deliveries
  bool stalled = false;        // a round's deliveries did not all arrive within --drain
  duet::Event delivered_all;   // set when delivered reaches wake_at
  Clock::time_point first_publish, last_delivery;
  double server_cpu = -1;      // seconds over first_publish → last round, -1 without --server-pid
};

void fail(Shared& shared, std::string what) {
  if (shared.first_error.empty()) shared.first_error = std::move(what);
  ++shared.failures;
}

std::string bulk(std::string_view s) {
  return std::string("$").append(std::to_string(s.size())).append("\r\n").append(s).append("\r\n");
}

std::string command(std::string_view name, std::string_view a, std::string_view b = {}) {
  const bool two = !b.empty();
  return std::string("*").append(two ? "3" : "2").append("\r\n") + bulk(name) + bulk(a) + (two ? bulk(b) : "");
}

// The server's CPU seconds (utime + stime of all its threads, as
// bench/compare reads them), or -1 without a pid or with no such process.
double server_cpu_seconds(long pid) {
  if (pid <= 0) return -1;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 1));
  std::string skip;
  unsigned long long utime = 0, stime = 0;
  for (int field = 3; field <= 13; ++field) rest >> skip;  // state ... cmajflt
  if (!(rest >> utime >> stime)) return -1;                // fields 14 and 15
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

duet::Task<duet::IoResult<duet::TcpStream>> connect(duet::EventLoop& loop, const Options& opt, std::stop_token stop) {
  const auto addr = duet::SocketAddress::parse(opt.host, opt.port).value();
  co_return co_await duet::with_timeout(duet::TcpStream::connect(loop, addr, std::move(stop)), reply_timeout);
}

// Reads the next complete value into `frame` (recv-ing as needed); false on EOF,
// error, stop, timeout or bad framing, with `why` set.
duet::Task<bool> read_frame(duet::TcpStream& conn, RespFrames& frames, RespFrame& frame, std::stop_token stop,
                            std::string& why) {
  while (!frames.next(frame)) {
    if (frames.malformed()) co_return why = "malformed reply", false;
    auto n = co_await duet::with_timeout(conn.recv(frames.space(), stop), reply_timeout);
    if (!n.eof() && n.error() == std::errc::timed_out) co_return why = "no reply within 10 s", false;
    if (!n) co_return why = n.eof() ? "server closed the connection" : n.error().message(), false;
    frames.commit(*n);
  }
  co_return true;
}

// SUBSCRIBE and its confirmation; false (with shared's error set) when it failed.
duet::Task<bool> subscribe(duet::TcpStream& conn, RespFrames& frames, const Options& opt, Shared& shared,
                           std::stop_token stop) {
  if (!co_await conn.send_all(command("SUBSCRIBE", opt.channel), stop)) co_return fail(shared, "send failed"), false;
  RespFrame f;
  std::string why;
  if (!co_await read_frame(conn, frames, f, stop, why)) co_return fail(shared, "SUBSCRIBE: " + why), false;
  if (f.head.type == '-') {
    shared.unsupported = true;
    co_return fail(shared, "SUBSCRIBE answered -" + std::string(f.head.text)), false;
  }
  const auto& count = f.items[2];
  if (!f.is_push("subscribe") || f.items[1].text != opt.channel || count.type != ':' || count.integer != 1) {
    co_return fail(shared, "SUBSCRIBE: not a *3 subscribe <channel> :1 confirmation"), false;
  }
  co_return true;
}

// Counts this subscriber's `message` pushes until stopped or disconnected.
duet::Task<void> receive(duet::TcpStream& conn, RespFrames& frames, const Options& opt, Shared& shared,
                         std::stop_token stop) {
  std::uint64_t mine = 0;
  for (;;) {
    std::uint64_t got = 0;
    for (RespFrame f; frames.next(f); ++got) {
      if (!f.is_push("message") || f.items[1].text != opt.channel || f.items[2].text.size() != opt.size) {
        fail(shared, "a subscriber got something other than a message push of --size bytes");
        break;
      }
    }
    if (got > 0) {
      mine += got;
      shared.delivered += got;
      ++shared.batches;
      shared.last_delivery = Clock::now();
      if (shared.delivered >= shared.wake_at) shared.delivered_all.set();
    }
    if (frames.malformed()) {
      fail(shared, "a subscriber got a malformed push");
      break;
    }
    auto n = co_await conn.recv(frames.space(), stop);  // ends by stop: main's waits have the deadlines
    if (!n) {
      if (n.eof()) ++shared.disconnected;
      else if (n.error() != std::errc::operation_canceled) fail(shared, "subscriber recv: " + n.error().message());
      break;
    }
    frames.commit(*n);
  }
  shared.min_delivered = std::min(shared.min_delivered, mine);
}

std::size_t buffer_size(const Options& opt) { return std::max<std::size_t>(32 * 1024, 2 * opt.size + 256); }

duet::Task<void> subscriber(duet::EventLoop& loop, const Options& opt, Shared& shared, duet::Semaphore& slots,
                            duet::Latch& set_up, std::stop_token stop) {
  RespFrames frames(buffer_size(opt));
  duet::TcpStream conn;
  bool ok = false;
  if (co_await slots.acquire(1, stop)) {
    if (auto c = co_await connect(loop, opt, stop); c) {
      conn = std::move(*c);
      ok = co_await subscribe(conn, frames, opt, shared, stop);
    } else {
      fail(shared, std::string("connect to ") + opt.host + ":" + std::to_string(opt.port) + ": " + c.error().message());
    }
    slots.release(1);
  }
  shared.confirmed += ok ? 1 : 0;
  set_up.count_down();
  if (ok) co_await receive(conn, frames, opt, shared, stop);
}

// One PUBLISH reply: the receiver count (must be every subscriber), or an error.
void count_reply(const RespFrame& f, const Options& opt, Shared& shared) {
  ++shared.replies;
  if (f.head.type != ':') return fail(shared, "PUBLISH answered " + std::string(1, f.head.type).append(f.head.text));
  ++shared.published;
  shared.receivers_sum += static_cast<std::uint64_t>(f.head.integer);
  shared.receivers_mismatch += f.head.integer != opt.subscribers ? 1 : 0;
}

// Reads replies until every PUBLISH sent is answered.
duet::Task<bool> read_replies(duet::TcpStream& conn, RespFrames& frames, const Options& opt, Shared& shared,
                              std::uint64_t sent, std::stop_token stop) {
  std::string why;
  for (RespFrame f; shared.replies < sent; count_reply(f, opt, shared)) {
    if (!co_await read_frame(conn, frames, f, stop, why)) co_return fail(shared, "PUBLISH: " + why), false;
  }
  co_return true;
}

// Waits until every subscriber has every message published so far (as the
// total tells); false when they have not within --drain seconds.
duet::Task<bool> wait_for_deliveries(const Options& opt, Shared& shared, std::stop_token stop) {
  shared.wake_at = shared.published * static_cast<std::uint64_t>(opt.subscribers);
  shared.delivered_all.reset();
  const bool ok = shared.delivered >= shared.wake_at ||
                  (co_await duet::with_timeout(shared.delivered_all.wait(stop), seconds(opt.drain))).ok();
  shared.wake_at = UINT64_MAX;
  co_return ok;
}

// Rounds of --pipeline PUBLISHes, one write each, until --duration or --messages;
// a round leaves once the previous one is answered and delivered.
duet::Task<void> publish(duet::EventLoop& loop, const Options& opt, Shared& shared, std::stop_token stop) {
  auto c = co_await connect(loop, opt, stop);
  if (!c) co_return fail(shared, "publisher connect: " + c.error().message());
  duet::TcpStream conn = std::move(*c);
  const std::string one = command("PUBLISH", opt.channel, std::string(opt.size, 'x'));
  std::string round;
  for (int i = 0; i < opt.pipeline; ++i) round += one;
  RespFrames frames(64 * 1024);
  const auto end = shared.first_publish + seconds(opt.duration);
  const std::uint64_t limit = opt.messages > 0 ? opt.messages : UINT64_MAX;
  for (std::uint64_t sent = 0; Clock::now() < end && sent < limit;) {
    const auto n = std::min(static_cast<std::uint64_t>(opt.pipeline), limit - sent);
    if (!co_await conn.send_all(std::string_view(round).substr(0, n * one.size()), stop)) {
      co_return fail(shared, "publisher send failed");
    }
    sent += n;
    if (!co_await read_replies(conn, frames, opt, shared, sent, stop)) co_return;
    if (!co_await wait_for_deliveries(opt, shared, stop)) co_return void(shared.stalled = true);
  }
}

// publish(), timed, with the server's CPU time over the same interval.
duet::Task<void> measure(duet::EventLoop& loop, const Options& opt, Shared& shared, std::stop_token stop) {
  const double cpu0 = server_cpu_seconds(opt.server_pid);
  shared.first_publish = shared.last_delivery = Clock::now();
  co_await publish(loop, opt, shared, stop);
  shared.server_cpu = cpu0 >= 0 ? server_cpu_seconds(opt.server_pid) - cpu0 : -1;
}

duet::Task<void> run(duet::EventLoop& loop, const Options& opt, Shared& shared) {
  duet::TaskScope scope;
  duet::Semaphore slots(loop, setup_slots);
  duet::Latch first(loop, 1), rest(loop, static_cast<std::size_t>(opt.subscribers - 1));
  // The first subscriber alone: refused, or no pub/sub, is one clear error, not a thousand.
  scope.spawn(subscriber(loop, opt, shared, slots, first, scope.stop_token()));
  (void)co_await duet::with_timeout(first.wait(), 2 * reply_timeout);
  if (shared.confirmed == 1) {
    for (int i = 1; i < opt.subscribers; ++i) {
      scope.spawn(subscriber(loop, opt, shared, slots, rest, scope.stop_token()));
    }
    (void)co_await duet::with_timeout(rest.wait(), 6 * reply_timeout);
  }
  if (shared.confirmed != opt.subscribers) {
    fail(shared, std::to_string(shared.confirmed) + " of " + std::to_string(opt.subscribers) + " subscribed");
  } else {
    co_await measure(loop, opt, shared, scope.stop_token());
  }
  scope.request_stop();
  co_await scope.join();
}

constexpr const char* usage =
    "--port N [--host ADDR] [--subscribers 1-15000] [--size 1-1048576] [--pipeline 1-4096]\n"
    "  [--duration S] [--messages 0-1000000000] [--drain S] [--channel NAME] [--server-pid PID]\n"
    "  [--backend io_uring|epoll] [--label NAME]\n";

Options parse(int argc, char** argv) {
  Options o;
  const duet::bench::CliArgs args(argv[0], usage);
  args.parse(argc, argv, o, [&](std::string_view f, const char* v) {
    if (f == "--subscribers") o.subscribers = static_cast<int>(args.number(f, v, 1, 15000));
    else if (f == "--size") o.size = static_cast<std::size_t>(args.number(f, v, 1, 1 << 20));
    else if (f == "--pipeline") o.pipeline = static_cast<int>(args.number(f, v, 1, 4096));
    else if (f == "--messages") o.messages = static_cast<std::uint64_t>(args.number(f, v, 0, 1000000000));
    else if (f == "--server-pid") o.server_pid = static_cast<long>(args.number(f, v, 1, 1 << 30));
    else if (f == "--drain") o.drain = args.seconds(f, v);
    else if (f == "--channel" && *v != '\0') o.channel = v;
    else return false;
    return true;
  });
  return o;
}

void report(const Options& opt, const Shared& s) {
  const auto as_double = [](std::uint64_t v) { return static_cast<double>(v); };
  const double expected = as_double(s.published) * opt.subscribers;
  const double span = std::chrono::duration<double>(s.last_delivery - s.first_publish).count();
  const double rate = span > 0 ? as_double(s.delivered) / span : 0;
  duet::bench::JsonLine json;
  json.text("label", opt.label).num("subscribers", opt.subscribers).num("size", as_double(opt.size));
  json.num("pipeline", opt.pipeline).num("published", as_double(s.published)).num("replies", as_double(s.replies));
  json.num("receivers_sum", as_double(s.receivers_sum)).num("receivers_mismatch", as_double(s.receivers_mismatch));
  json.num("delivered", as_double(s.delivered)).num("expected", expected);
  json.num("lost", expected - as_double(s.delivered)).num("disconnected", s.disconnected);
  json.num("slowest_subscriber", s.min_delivered == UINT64_MAX ? 0 : as_double(s.min_delivered));
  json.num("delivery_s", span, 4).num("delivered_per_s", rate, 1);
  json.num("messages_per_recv", s.batches > 0 ? as_double(s.delivered) / as_double(s.batches) : 0, 2);
  const double ns_per = s.server_cpu >= 0 && s.delivered > 0 ? s.server_cpu * 1e9 / as_double(s.delivered) : -1;
  json.num("server_cpu_s", s.server_cpu, 3).num("server_cpu_ns_per_delivered", ns_per, 2);
  json.num("failures", s.failures).flag("stalled", s.stalled).flag("unsupported", s.unsupported);
  std::fputs(json.text("error", s.first_error).line().c_str(), stdout);
  std::fprintf(stderr, "%s: %d subscribers, %zu B, pipeline %d: published %.0f, delivered %.0f (%.0f msg/s), "
               "lost %.0f%s%s\n",
               opt.label, opt.subscribers, opt.size, opt.pipeline, as_double(s.published), as_double(s.delivered), rate,
               expected - as_double(s.delivered), s.first_error.empty() ? "" : "; error: ", s.first_error.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  duet::EventLoop loop(opt.backend);
  Shared shared(loop);
  try {
    duet::run_until_complete(loop, run(loop, opt, shared));
  } catch (const std::exception& e) {  // e.g. socket() failing with EMFILE: raise ulimit -n
    fail(shared, e.what());
  }
  report(opt, shared);
  if (shared.unsupported) {
    std::fprintf(stderr, "%s: the server on port %u does not support pub/sub (%s)\n", opt.label, opt.port,
                 shared.first_error.c_str());
    return 3;
  }
  return shared.failures == 0 ? 0 : 1;
}
