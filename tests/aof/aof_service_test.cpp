// The AOF on a real EventLoop, both backends, files in a temp dir: group
// commit under appendfsync always, everysec, and a rewrite under writes.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "aof/aof_test_util.hpp"
#include "kv/aof/aof_loader.hpp"
#include "kv/aof/aof_service.hpp"
#include "kv/kv_test_util.hpp"
#include "kv/session.hpp"
#include "support/temp_dir.hpp"

using namespace duet;
using namespace duet::kv;
using duet::test::TempDir;
using kvtest::run;

namespace {

struct FlagWaiter : DurableWaiter {
  bool done = false;
  FlagWaiter() {
    resume_ = [](DurableWaiter* w) noexcept { static_cast<FlagWaiter*>(w)->done = true; };
  }
};

ServerConfig aof_config(const std::string& dir, std::string policy) {
  ServerConfig c;
  c.appendonly = true;
  c.appendfsync = std::move(policy);
  c.dir = dir;
  return c;
}

template <class Done>
bool turn_until(EventLoop& loop, Done done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    loop.run_once(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
  }
  return true;
}

std::uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

AofService::Log quiet() {
  return [](bool, const std::string&) {};
}

// One server's AOF, opened on a loop of the given backend, in a temp dir.
struct AofRig {
  AofRig(Backend backend, std::string policy)
      : state(aof_config(dir.path(), std::move(policy))), loop(backend), aof(state, loop, quiet()) {
    aof.open();
  }
  TempDir dir{"duet-aof"};
  ServerState state;
  EventLoop loop;
  AofService aof;
};

}  // namespace

TEST_CASE("under appendfsync always a reply is released only after an fsync, and one fsync covers a turn of writers") {
  AofRig rig(GENERATE(Backend::io_uring, Backend::epoll), "always");
  auto& [dir, state, loop, aof] = rig;
  std::vector<std::unique_ptr<Session>> sessions;
  std::vector<FlagWaiter> waiters(50);
  for (auto& w : waiters) {
    sessions.push_back(std::make_unique<Session>(state));
    CHECK(run(*sessions.back(), {"INCR", "n"}).front() == ':');
    REQUIRE(aof.must_wait());
    aof.wait(w);
  }
  const std::uint64_t target = aof.writer().appended();
  CHECK(aof.writer().durable() < target);
  REQUIRE(turn_until(loop, [&] { return std::all_of(waiters.begin(), waiters.end(), [](auto& w) { return w.done; }); }));
  CHECK(aof.writer().durable() >= target);
  CHECK(aof.writer().fsync_count() == 1);
  CHECK_FALSE(aof.must_wait());
  aof.shutdown();
  ServerState reloaded;
  REQUIRE(load_aof(reloaded, dir.path() + "/appendonly.aof").status == AofLoadStatus::loaded);
  CHECK(aoftest::text_of(reloaded.store().db(0).find("n", 0)->value) == "50");
}

TEST_CASE("on io_uring the AOF's fsyncs go through the loop, never through the worker thread") {
  const std::string policy = GENERATE("always", "everysec");
  AofRig rig(Backend::io_uring, policy);
  auto& [dir, state, loop, aof] = rig;
  Session s(state);
  run(s, {"SET", "k", "v"});
  FlagWaiter w;
  aof.wait(w);
  std::size_t worker_jobs = 0;  // the most jobs the worker held after any turn
  auto sampled = [&](auto done) {
    return turn_until(loop, [&] {
      worker_jobs = std::max(worker_jobs, aof.worker().outstanding());
      return done();
    });
  };
  REQUIRE(sampled([&] { return w.done; }));
  if (policy == "everysec") {
    ::usleep(1'100'000);
    aof.tick();
  }
  REQUIRE(sampled([&] { return aof.writer().fsync_count() == 1; }));
  CHECK(aof.writer().durable() == aof.writer().appended());
  CHECK(worker_jobs == 0);
  aof.shutdown();
}

TEST_CASE("under appendfsync everysec a reply waits for the write only, and the fsync comes from tick a second later") {
  AofRig rig(GENERATE(Backend::io_uring, Backend::epoll), "everysec");
  auto& [dir, state, loop, aof] = rig;
  Session s(state);
  run(s, {"SET", "k", "v"});
  FlagWaiter w;
  aof.wait(w);
  REQUIRE(turn_until(loop, [&] { return w.done; }));
  CHECK(aof.writer().written() == aof.writer().appended());
  CHECK(aof.writer().fsync_count() == 0);
  aof.tick();
  CHECK(aof.writer().fsync_count() == 0);  // not a second yet
  ::usleep(1'100'000);
  aof.tick();
  REQUIRE(turn_until(loop, [&] { return aof.writer().fsync_count() == 1; }));
  CHECK(aof.writer().durable() == aof.writer().written());
  aof.shutdown();
}

TEST_CASE("a rewrite under a stream of writes loses nothing, shrinks the log and leaves no temp file") {
  AofRig rig(GENERATE(Backend::io_uring, Backend::epoll), "everysec");
  auto& [dir, state, loop, aof] = rig;
  Session s(state);
  for (int i = 0; i < 20'000; ++i) {
    std::string key = "key:" + std::to_string(i);
    run(s, {"SET", key, "x"});
    run(s, {"APPEND", key, "y"});
    if (i % 3 == 0) run(s, {"SET", "vol:" + std::to_string(i), "v", "EX", "3600"});
  }
  run(s, {"SELECT", "2"});
  run(s, {"MSET", "a", "1", "b", "2"});
  run(s, {"SELECT", "0"});
  aof.tick();
  REQUIRE(turn_until(loop, [&] { return !aof.must_wait() || (aof.tick(), false); }));
  const std::uint64_t before = file_size(aof.path());
  std::string message;
  REQUIRE(aof.request_rewrite(message));
  CHECK(message == "Background append only file rewriting started");
  CHECK_FALSE(aof.request_rewrite(message));
  CHECK(message == "ERR Background append only file rewriting already in progress");
  std::mt19937 rng(11);
  int turns = 0;
  REQUIRE(turn_until(loop, [&] {
    for (int j = 0; j < 40; ++j) {  // writes between slices hit keys on both sides of the scan
      std::string key = "key:" + std::to_string(rng() % 20'000);
      switch (rng() % 6) {
        case 0: run(s, {"APPEND", key, "z"}); break;
        case 1: run(s, {"INCR", "counter:" + std::to_string(rng() % 100)}); break;
        case 2: run(s, {"DEL", key}); break;
        case 3: run(s, {"APPEND", "new:" + std::to_string(rng() % 5000), "n"}); break;
        case 4: run(s, {"RENAME", key, "renamed:" + std::to_string(rng() % 5000)}); break;
        default: run(s, {"PEXPIRE", key, std::to_string(100'000 + rng() % 1000)}); break;
      }
    }
    if (++turns == 5) run(s, {"SELECT", "2"}), run(s, {"FLUSHDB"}), run(s, {"SET", "c", "3"}), run(s, {"SELECT", "0"});
    return !aof.rewriter().running();
  }, std::chrono::seconds(60)));
  CHECK(aof.rewriter().completed() == 1);
  CHECK(turns > 5);
  run(s, {"APPEND", "after", "rewrite"});
  aof.shutdown();
  CHECK(file_size(aof.path()) < before);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/temp-rewriteaof-" + std::to_string(::getpid()) + ".aof"));
  ServerState reloaded;
  REQUIRE(load_aof(reloaded, aof.path()).status == AofLoadStatus::loaded);
  const std::int64_t now = ServerState::system_now_ms();
  CHECK(aoftest::dump(reloaded, now) == aoftest::dump(state, now));
}

TEST_CASE("a shutdown in the middle of a rewrite drops the temp file and keeps the old log complete") {
  AofRig rig(GENERATE(Backend::io_uring, Backend::epoll), "always");
  auto& [dir, state, loop, aof] = rig;
  Session s(state);
  for (int i = 0; i < 5000; ++i) run(s, {"INCR", "k" + std::to_string(i % 2000)});
  std::string message;
  REQUIRE(aof.request_rewrite(message));
  loop.run_once();  // one slice at most
  run(s, {"APPEND", "late", "x"});
  aof.shutdown();
  CHECK(aof.rewriter().completed() == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/temp-rewriteaof-" + std::to_string(::getpid()) + ".aof"));
  ServerState reloaded;
  REQUIRE(load_aof(reloaded, aof.path()).status == AofLoadStatus::loaded);
  const std::int64_t now = ServerState::system_now_ms();
  CHECK(aoftest::dump(reloaded, now) == aoftest::dump(state, now));
}

// The switch waits for the write or fsync in flight (pause), and commands keep
// running meanwhile: under always a write lands in every loop turn, so some land
// in that window. A waiter released must mean its record is in the file that is
// on disk now, the one a kill -9 would leave.
TEST_CASE("every write acknowledged while a rewrite switches files is in the rewritten log") {
  AofRig rig(GENERATE(Backend::io_uring, Backend::epoll), "always");
  auto& [dir, state, loop, aof] = rig;
  Session s(state);
  for (int i = 0; i < 3000; ++i) run(s, {"SET", "pre:" + std::to_string(i), "x"});  // a few slices
  std::string message;
  REQUIRE(aof.request_rewrite(message));
  std::deque<FlagWaiter> waiters;
  std::vector<std::string> keys;
  int written_while_paused = 0;
  REQUIRE(turn_until(loop, [&] {
    keys.push_back("w:" + std::to_string(keys.size()));
    run(s, {"SET", keys.back(), "v"});
    run(s, {"INCR", "count"});  // a record replayed twice would show here
    if (aof.writer().paused()) ++written_while_paused;
    aof.wait(waiters.emplace_back());
    return !aof.rewriter().running();
  }));
  REQUIRE(aof.rewriter().completed() == 1);
  CHECK(written_while_paused > 0);
  ServerState on_disk;  // what a kill -9 right now would leave
  REQUIRE(load_aof(on_disk, aof.path()).status == AofLoadStatus::loaded);
  std::size_t lost = 0;
  long acked = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    acked += waiters[i].done ? 1 : 0;
    if (waiters[i].done && on_disk.store().db(0).find(keys[i], 0) == nullptr) ++lost;
  }
  CHECK(lost == 0);
  const Entry* count = on_disk.store().db(0).find("count", 0);
  REQUIRE(count != nullptr);
  CHECK(std::atol(aoftest::text_of(count->value).c_str()) >= acked);
  CHECK(on_disk.store().db(0).find("pre:2999", 0) != nullptr);
  REQUIRE(turn_until(loop, [&] { return !aof.must_wait(); }));
  aof.shutdown();
  ServerState reloaded;
  REQUIRE(load_aof(reloaded, aof.path()).status == AofLoadStatus::loaded);
  const std::int64_t now = ServerState::system_now_ms();
  CHECK((aoftest::dump(reloaded, now) == aoftest::dump(state, now)));  // (( )): no 10k-entry expansion
}
