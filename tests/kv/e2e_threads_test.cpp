// The KV server on two threads (--threads 2) end to end, over loopback: what
// only a sharded server can get wrong. Replies in request order when one
// pipeline spreads over both shards; SHUTDOWN or a signal seen on either
// shard stops the whole server; --maxclients counts every shard's clients;
// clients blocked over both shards' keys are served once each.
// Both executables, both backends (the rest of the e2e suites run with
// --threads 2 as well: e2e_target.hpp).
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e_support.hpp"
#include "e2e_target.hpp"
#include "kv_test_util.hpp"

using kve2e::Client;
using kve2e::ServerProcess;
using kve2e::Target;
using kvtest::resp;

namespace {

Target pick_sharded_target() {
  std::string exe = kve2e::pick_exe();
  std::string backend = GENERATE(as<std::string>{}, "io_uring", "epoll");
  return {exe, backend, 2};
}

std::string bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }

// The shard a connection is on. Shard i of n numbers its clients i+1,
// i+1+n, ...: with two shards an odd CLIENT ID is shard 0's.
int shard_of(Client& c) {
  c.send(resp({"CLIENT", "ID"}));
  const std::string reply = c.read_available(200);
  REQUIRE(reply.size() > 3);
  return std::stoi(reply.substr(1)) % 2 == 1 ? 0 : 1;
}

}  // namespace

TEST_CASE("a pipeline of 1,000 commands over keys on both shards gets its replies in request order",
          "[kv][e2e][threads]") {
  const Target t = pick_sharded_target();
  const std::string accept = GENERATE(as<std::string>{}, "reuseport", "single");
  INFO(t.describe() << " --accept " << accept);
  ServerProcess server(t.exe, t.backend, t.args({"--accept", accept}));
  Client c(server.port());
  // SETs and GETs of 250 keys (spread over both shards by their hash),
  // counters, and MGETs over two keys that are usually on different shards
  // (a job over both): each reply depends on the commands before it.
  std::string request, expected;
  std::map<int, int> counters;
  for (int i = 0; i < 1000; ++i) {
    const std::string k = "key:" + std::to_string(i / 4 * 4);
    const std::string v = "value-" + std::to_string(i / 4 * 4);
    switch (i % 4) {
      case 0:
        request += resp({"SET", k, v});
        expected += "+OK\r\n";
        break;
      case 1:
        request += resp({"GET", k});
        expected += bulk(v);
        break;
      case 2:
        request += resp({"INCR", "counter:" + std::to_string(i % 10)});
        expected += ":" + std::to_string(++counters[i % 10]) + "\r\n";
        break;
      default: {
        const std::string older = "key:" + std::to_string(i / 4 * 4 - 4);
        request += resp({"MGET", k, older, "missing"});
        expected += "*3\r\n" + bulk(v) + (i < 4 ? "$-1\r\n" : bulk("value-" + std::to_string(i / 4 * 4 - 4))) +
                    "$-1\r\n";
      }
    }
  }
  std::thread writer([&] { c.send(request); });
  const std::string got = c.read_exact(expected.size());
  writer.join();
  CHECK(got.size() == expected.size());
  CHECK(got == expected);
  CHECK(c.call(resp({"DBSIZE"}), 6) == ":" + std::to_string(250 + counters.size()) + "\r\n");
}

TEST_CASE("SHUTDOWN on either shard, and SIGTERM, stop a --threads 2 server with exit 0", "[kv][e2e][threads]") {
  const Target t = pick_sharded_target();
  INFO(t.describe());
  for (int target_shard : {0, 1}) {
    INFO("SHUTDOWN sent on shard " << target_shard);
    // --accept single hands connections to shard 0, 1, 0, ... in turn.
    ServerProcess server(t.exe, t.backend, t.args({"--accept", "single"}));
    Client first(server.port()), second(server.port());
    REQUIRE(shard_of(first) == 0);
    REQUIRE(shard_of(second) == 1);
    Client& idle = target_shard == 0 ? second : first;  // an open connection on the other shard
    Client& c = target_shard == 0 ? first : second;
    c.send(resp({"SHUTDOWN"}));
    CHECK(c.read_available(3000).empty());
    CHECK(c.closed());
    CHECK(server.wait_exit() == 0);
    idle.read_available(2000);
    CHECK(idle.closed());
  }
  ServerProcess server(t.exe, t.backend, t.args());
  Client a(server.port()), b(server.port());
  CHECK(a.call(resp({"SET", "a", "1"}), 5) == "+OK\r\n");
  CHECK(b.call(resp({"MGET", "a", "b", "c"}), 21) == "*3\r\n$1\r\n1\r\n$-1\r\n$-1\r\n");
  CHECK(server.terminate() == 0);
  a.read_available(2000);
  CHECK(a.closed());
}

TEST_CASE("--maxclients counts the connections of every shard", "[kv][e2e][threads]") {
  const Target t = pick_sharded_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args({"--maxclients", "2", "--accept", "single"}));
  Client a(server.port()), b(server.port());
  CHECK(shard_of(a) == 0);
  CHECK(shard_of(b) == 1);
  Client c(server.port());  // goes to shard 0, which has one client of its own
  const std::string refused = "-ERR max number of clients reached\r\n";
  CHECK(c.read_exact(refused.size()) == refused);
  c.read_available(2000);
  CHECK(c.closed());
  const std::string stats = (a.send(resp({"INFO", "stats"})), a.read_available());
  CHECK(stats.find("rejected_connections:1") != std::string::npos);
}

TEST_CASE("--threads and --accept are checked", "[kv][e2e][threads]") {
  const std::string exe = kve2e::pick_exe();
  for (const std::string bad : {"0", "65", "two"}) {
    const auto [status, out] = kve2e::run_command(exe + " --port 0 --threads " + bad);
    CHECK(status == 2);
    CHECK(out.find("invalid value '" + bad + "' for --threads") != std::string::npos);
  }
  const auto [accept_status, accept_out] = kve2e::run_command(exe + " --port 0 --accept sometimes");
  CHECK(accept_status == 2);
  CHECK(accept_out.find("for --accept: expected reuseport or single") != std::string::npos);
}

TEST_CASE("a second server on the port of a running one fails to start instead of sharing it", "[kv][e2e][threads]") {
  const Target t = pick_sharded_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args({"--accept", "reuseport"}));
  // SO_REUSEPORT alone would let the second join the port and take part of
  // the first one's connections; Redis refuses with EADDRINUSE, and so does duet.
  const auto [status, out] = kve2e::run_command("timeout 10 " + t.exe + " --threads 2 --backend " + t.backend + " --port " +
                                                std::to_string(server.port()));
  CHECK(status == 1);
  CHECK(out.find("Address already in use") != std::string::npos);
  Client c(server.port());
  CHECK(c.call(resp({"PING"}), 7) == "+PONG\r\n");
}

TEST_CASE("clients blocked over keys of both shards are each served exactly once, BLPOP and BLMOVE",
          "[kv][e2e][threads]") {
  const Target t = pick_sharded_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args());
  Client pusher(server.port());
  // Eight keys land on both shards (the hash is seeded per process: all on
  // one has odds 1 in 128), so each BLPOP waits on both; of the three
  // BLMOVE pairs, some usually cross shards.
  std::vector<std::unique_ptr<Client>> poppers, movers;
  for (int i = 0; i < 3; ++i) poppers.push_back(std::make_unique<Client>(server.port()));
  for (int i = 0; i < 3; ++i) movers.push_back(std::make_unique<Client>(server.port()));
  for (int round = 0; round < 10; ++round) {
    for (auto& p : poppers) p->send(resp({"BLPOP", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "0"}));
    for (int j = 0; j < 3; ++j) {
      movers[j]->send(resp({"BLMOVE", "s" + std::to_string(j), "d" + std::to_string(j), "LEFT", "RIGHT", "0"}));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // all blocked (else served at once: the same)
    std::string pushes;
    for (int j = 0; j < 3; ++j) {
      pushes += resp({"RPUSH", "q" + std::to_string((round + 3 * j) % 8), "E" + std::to_string(j)});
      pushes += resp({"RPUSH", "s" + std::to_string(j), "M" + std::to_string(j)});
    }
    pusher.send(pushes);
    CHECK(pusher.read_exact(6 * 4) == std::string(":1\r\n").append(":1\r\n").append(":1\r\n").append(":1\r\n")
                                          .append(":1\r\n").append(":1\r\n"));
    std::multiset<std::string> popped;
    for (auto& p : poppers) {
      const std::string r = p->read_exact(20);  // *2 $2 qN $2 Ej
      REQUIRE(r.starts_with("*2\r\n$2\r\nq"));
      popped.insert(r.substr(16, 2));
    }
    CHECK(popped == std::multiset<std::string>{"E0", "E1", "E2"});
    for (int j = 0; j < 3; ++j) CHECK(movers[j]->read_exact(8) == bulk("M" + std::to_string(j)));
  }
  CHECK(pusher.call(resp({"EXISTS", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "s0", "s1", "s2"}), 4) ==
        ":0\r\n");
  for (int j = 0; j < 3; ++j) {
    CHECK(pusher.call(resp({"LLEN", "d" + std::to_string(j)}), 5) == ":10\r\n");
  }
}
