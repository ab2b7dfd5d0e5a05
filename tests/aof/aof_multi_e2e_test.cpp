// Transactions in the append-only file, end to end: writers move amounts
// between accounts on every shard in MULTI/EXEC blocks while the server is
// killed with SIGKILL (and rewrites the log meanwhile); after a restart every
// acknowledged EXEC is there as a whole — the accounts still sum to zero and
// each writer's counter is at least what was acknowledged — and nothing
// unacknowledged is half there.
#include <catch2/catch.hpp>

#include <signal.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aof/aof_e2e_support.hpp"
#include "support/temp_dir.hpp"

using aofe2e::Client;
using aofe2e::exe;
using aofe2e::Server;
using duet::test::TempDir;

namespace {

constexpr int accounts = 8;

struct Writer {
  long sent = 0;   // transactions sent
  long acked = 0;  // the writer's counter as the last acknowledged EXEC left it
};

// One transfer per EXEC: INCRBY a x, DECRBY b x, INCR done:<id>.
void transfer(int port, int id, const std::atomic<bool>& stop, Writer& w) {
  std::mt19937 rng(static_cast<unsigned>(id) + 1);
  try {
    Client c(port);
    while (!stop.load()) {
      const std::string a = "acct:" + std::to_string(rng() % accounts);
      const std::string b = "acct:" + std::to_string(rng() % accounts);
      const std::string x = std::to_string(1 + rng() % 100);
      const std::string done = "done:" + std::to_string(id);
      if (!c.send(aofe2e::resp({"MULTI"}) + aofe2e::resp({"INCRBY", a, x}) + aofe2e::resp({"DECRBY", b, x}) +
                  aofe2e::resp({"INCR", done}) + aofe2e::resp({"EXEC"}))) {
        return;
      }
      ++w.sent;
      for (int i = 0; i < 4; ++i) {  // +OK, +QUEUED x3
        if (c.reply(5000).empty()) return;
      }
      if (c.reply(5000) != "*3") return;
      c.reply(5000);
      c.reply(5000);
      const std::string n = c.reply(5000);
      if (n.empty() || n[0] != ':') return;
      w.acked = std::atol(n.c_str() + 1);
    }
  } catch (const std::exception&) {
  }
}

}  // namespace

TEST_CASE("every acknowledged transaction survives a kill -9 whole and none is half applied, both executables, one thread or two") {
  const char* voice = GENERATE("stackless", "stackful");
  const char* backend = GENERATE("io_uring", "epoll");
  const char* threads = GENERATE("1", "2");
  INFO(voice << " on " << backend << ", --threads " << threads);
  TempDir dir("duet-aof-multi-e2e");
  auto server = std::make_unique<Server>(exe(voice), backend, dir.path(),
                                         std::vector<std::string>{"--appendfsync", "always", "--threads", threads});
  REQUIRE(server->running());
  const int port = server->port();
  std::atomic<bool> stop{false};
  std::vector<Writer> writers(4);
  std::vector<std::thread> threads_;
  for (int t = 0; t < static_cast<int>(writers.size()); ++t) {
    threads_.emplace_back([&, t] { transfer(port, t, stop, writers[static_cast<std::size_t>(t)]); });
  }
  Client admin(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  REQUIRE(admin.call({"BGREWRITEAOF"}) == "+Background append only file rewriting started");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ::kill(server->pid(), SIGKILL);
  stop = true;
  for (auto& t : threads_) t.join();
  server.reset();
  Server again(exe(voice), backend, dir.path(), {"--threads", threads}, port);
  INFO(again.log());
  REQUIRE(again.running());
  Client check(port);
  long sum = 0;
  for (int i = 0; i < accounts; ++i) {
    const std::string v = check.call({"GET", "acct:" + std::to_string(i)});
    if (v != "(nil)") sum += std::atol(v.c_str());
  }
  CHECK(sum == 0);
  long total = 0;
  for (std::size_t t = 0; t < writers.size(); ++t) {
    const std::string v = check.call({"GET", "done:" + std::to_string(t)});
    const long done = v == "(nil)" ? 0 : std::atol(v.c_str());
    INFO("writer " << t << ": sent " << writers[t].sent << ", acked " << writers[t].acked << ", in the log " << done);
    CHECK(done >= writers[t].acked);
    CHECK(done <= writers[t].sent);
    total += writers[t].acked;
  }
  CHECK(total > 0);
}
