// hiredis_fibers — unmodified blocking hiredis on many fibers in one thread.
//
//   hiredis_fibers [--host 127.0.0.1] [--port 6379] [--fibers 100] [--requests 1000] [--backend io_uring|epoll]
//
// --host may be a name: it is resolved once, on duet's blocking pool
// (fiber::resolve; hiredis's own getaddrinfo would block the whole thread in
// every fiber's redisConnect), and the fibers connect to its first address.
// Each fiber calls plain redisConnect and redisCommand — blocking calls that
// know nothing of fibers. libduet_hook turns their connect/read/write/poll into
// fiber waits, so the fibers overlap on one thread. Every reply is checked:
// fiber f's INCR number i must answer i. Exits 0 only if all were right.
// Needs libduet_hook loaded: link it, or LD_PRELOAD it; if neither was done this
// program re-executes itself with LD_PRELOAD (DUET_HOOK_LIB overrides the path).
#include <dlfcn.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <duet/stackful/resolve.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/this_fiber.hpp>

#include "ensure_hooks.hpp"

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 6379;
  int fibers = 100;
  int requests = 1000;
  duet::Backend backend = duet::Backend::io_uring;
};

struct Totals {
  long checked = 0;
  long wrong = 0;
  int in_command = 0;  // fibers inside redisCommand right now
  int most_at_once = 0;
};

// One fiber: its own connection and counter key; every reply is checked.
void client(const Options& opt, Totals& totals, int id, const std::string& run) {
  redisContext* c = redisConnect(opt.host.c_str(), opt.port);
  if (c == nullptr || c->err != 0) {
    std::fprintf(stderr, "fiber %d: connect: %s\n", id, c != nullptr ? c->errstr : "out of memory");
    totals.wrong += opt.requests;
    if (c != nullptr) redisFree(c);
    return;
  }
  const std::string key = "duet:hiredis_fibers:" + run + ":" + std::to_string(id);
  for (long i = 1; i <= opt.requests; ++i) {
    totals.most_at_once = std::max(totals.most_at_once, ++totals.in_command);
    auto* reply = static_cast<redisReply*>(redisCommand(c, "INCR %s", key.c_str()));
    --totals.in_command;
    const bool right = reply != nullptr && reply->type == REDIS_REPLY_INTEGER && reply->integer == i;
    ++(right ? totals.checked : totals.wrong);
    if (reply != nullptr) freeReplyObject(reply);
    if (reply == nullptr) break;  // the connection is gone
  }
  freeReplyObject(redisCommand(c, "DEL %s", key.c_str()));
  redisFree(c);
}

// On a fiber: host's first address as a numeric string ("127.0.0.1", "::1").
std::string numeric_host(const std::string& host) {
  auto addrs = duet::fiber::resolve(host, "0");
  if (!addrs) {
    std::fprintf(stderr, "%s: %s\n", host.c_str(), addrs.error().message().c_str());
    return {};
  }
  char text[NI_MAXHOST] = {};
  const duet::SocketAddress& first = addrs->front();
  ::getnameinfo(first.data(), first.size(), text, sizeof text, nullptr, 0, NI_NUMERICHOST);
  return text;
}

Options parse(int argc, char** argv) {
  Options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--host") opt.host = argv[i + 1];
    if (flag == "--port") opt.port = std::atoi(argv[i + 1]);
    if (flag == "--fibers") opt.fibers = std::atoi(argv[i + 1]);
    if (flag == "--requests") opt.requests = std::atoi(argv[i + 1]);
    if (flag == "--backend") opt.backend = duet::parse_backend(argv[i + 1]).value_or(opt.backend);
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  examples::ensure_hooks(argv);
  Options opt = parse(argc, argv);
  const std::string run = std::to_string(::getpid());
  Totals totals;
  duet::fiber::Scheduler scheduler({.backend = opt.backend, .stack_size = 256 * 1024});
  scheduler.spawn([&opt] { opt.host = numeric_host(opt.host); }).join();
  if (opt.host.empty()) return 2;
  const auto start = std::chrono::steady_clock::now();
  for (int id = 0; id < opt.fibers; ++id) scheduler.spawn(client, std::cref(opt), std::ref(totals), id, run).detach();
  scheduler.run();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  const long expected = static_cast<long>(opt.fibers) * opt.requests;
  std::printf("%ld requests (%d fibers x %d) in %.3f s: %.0f req/s, %ld checked, %ld wrong, up to %d fibers in "
              "redisCommand at once (%s)\n",
              totals.checked + totals.wrong, opt.fibers, opt.requests, elapsed.count(),
              static_cast<double>(totals.checked) / elapsed.count(), totals.checked, totals.wrong,
              totals.most_at_once, duet::backend_name(opt.backend).data());
  return totals.checked == expected && totals.wrong == 0 ? 0 : 1;
}
