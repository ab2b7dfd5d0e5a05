// The AOF's content: what each write command logs (Redis 7's deterministic
// forms) and how a log is replayed, truncated or refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "aof/aof_test_util.hpp"
#include "kv/aof/aof_loader.hpp"
#include "kv/kv_test_util.hpp"
#include "kv/notify.hpp"
#include "kv/session.hpp"

using namespace duet::kv;
using aoftest::Recorder;
using kvtest::resp;
using kvtest::run;

namespace {

constexpr std::int64_t t0 = 1'700'000'000'000;  // a fixed "now" in unix ms

std::string select0() { return resp({"SELECT", "0"}); }

}  // namespace

TEST_CASE("an AOF record is a RESP multibulk array, with SELECT only when the database changes") {
  AofBuffer buf;
  buf.append(0, {"SET", "k", "v"});
  buf.append(0, {"DEL", "k"});
  buf.append(3, {"INCR", "n"});
  CHECK(buf.bytes() == select0() + resp({"SET", "k", "v"}) + resp({"DEL", "k"}) + resp({"SELECT", "3"}) +
                           resp({"INCR", "n"}));
}

TEST_CASE("relative expiries are logged as absolute PXAT and PEXPIREAT, as Redis 7 propagates them") {
  ServerState state;
  state.set_clock([] { return t0; });
  Recorder rec(state);
  Session s(state);
  run(s, {"SET", "a", "1", "EX", "10"});
  run(s, {"SETEX", "b", "5", "2"});
  run(s, {"PSETEX", "c", "1500", "3"});
  run(s, {"EXPIRE", "a", "100"});
  run(s, {"GETEX", "b", "PX", "700"});
  run(s, {"GETEX", "c", "PERSIST"});
  const std::string at = std::to_string(t0 + 10'000);
  CHECK(rec.log.bytes() == select0() + resp({"SET", "a", "1", "PXAT", at}) +
                               resp({"SET", "b", "2", "PXAT", std::to_string(t0 + 5000)}) +
                               resp({"SET", "c", "3", "PXAT", std::to_string(t0 + 1500)}) +
                               resp({"PEXPIREAT", "a", std::to_string(t0 + 100'000)}) +
                               resp({"PEXPIREAT", "b", std::to_string(t0 + 700)}) + resp({"PERSIST", "c"}));
}

TEST_CASE("an expiry in the past, INCRBYFLOAT, GETDEL and MOD are logged in forms Redis can replay") {
  ServerState state;
  state.set_clock([] { return t0; });
  Recorder rec(state);
  Session s(state);
  run(s, {"SET", "gone", "x"});
  run(s, {"EXPIREAT", "gone", "1"});
  run(s, {"INCRBYFLOAT", "f", "1.5"});
  run(s, {"SET", "d", "v"});
  run(s, {"GETDEL", "d"});
  run(s, {"SET", "m", "old"});
  run(s, {"MOD", "m", "new"});
  CHECK(rec.log.bytes() == select0() + resp({"SET", "gone", "x"}) + resp({"DEL", "gone"}) +
                               resp({"SET", "f", "1.5", "KEEPTTL"}) + resp({"SET", "d", "v"}) + resp({"DEL", "d"}) +
                               resp({"SET", "m", "old"}) + resp({"SET", "m", "new"}));
}

TEST_CASE("writes that change nothing and errors are not logged") {
  ServerState state;
  Recorder rec(state);
  Session s(state);
  run(s, {"SET", "k", "v"});
  const std::size_t before = rec.log.size();
  run(s, {"SET", "k", "w", "NX"});
  run(s, {"DEL", "missing"});
  run(s, {"EXPIRE", "missing", "10"});
  run(s, {"PERSIST", "k"});
  run(s, {"MOD", "missing", "v"});
  run(s, {"INCR", "k"});  // WRONGTYPE-like error: not an integer
  run(s, {"GET", "k"});   // reads are never logged
  CHECK(rec.log.size() == before);
}

TEST_CASE("a key that expired between two writes replays to the same value, because its expiry is logged as DEL") {
  std::int64_t now = t0;
  ServerState state;
  state.set_clock([&] { return now; });
  Recorder rec(state);
  Session s(state);
  run(s, {"SET", "k", "5", "PX", "100"});
  now += 200;
  CHECK(run(s, {"INCR", "k"}) == ":1\r\n");  // the old value expired first
  ServerState replayed;
  REQUIRE(replay_aof(replayed, rec.log.bytes()).status == AofLoadStatus::loaded);
  CHECK(aoftest::dump(replayed, now) == aoftest::dump(state, now));
  CHECK(aoftest::dump(replayed, now).at({0, "k"}).second == Entry::no_expiry);
}

TEST_CASE("replaying the log of random writes rebuilds exactly the same keyspace") {
  std::int64_t now = t0;
  ServerState state;
  state.set_clock([&] { return now; });
  Recorder rec(state);
  Session s(state);
  std::mt19937 rng(7);
  const char* cmds[] = {"SET", "INCR", "APPEND", "DEL", "EXPIRE", "PERSIST", "SELECT", "GETEX", "SETRANGE", "RENAME"};
  for (int i = 0; i < 5000; ++i) {
    std::string key = "k" + std::to_string(rng() % 50);
    std::string other = "k" + std::to_string(rng() % 50);
    std::string n = std::to_string(rng() % 1000);
    switch (rng() % 10) {
      case 0: run(s, {cmds[0], key, n, "PX", std::to_string(rng() % 300)}); break;
      case 1: run(s, {cmds[1], key}); break;
      case 2: run(s, {cmds[2], key, "ab"}); break;
      case 3: run(s, {cmds[3], key, other}); break;
      case 4: run(s, {cmds[4], key, std::to_string(rng() % 2)}); break;
      case 5: run(s, {cmds[5], key}); break;
      case 6: run(s, {cmds[6], std::to_string(rng() % 3)}); break;
      case 7: run(s, {cmds[7], key, "PX", std::to_string(1 + rng() % 300)}); break;
      case 8: run(s, {cmds[8], key, std::to_string(rng() % 5), "zz"}); break;
      default: run(s, {cmds[9], key, other}); break;
    }
    now += rng() % 3;
    if (i % 100 == 0) state.store().active_expire_cycle(now, 100);
  }
  ServerState replayed;
  AofLoadResult r = replay_aof(replayed, rec.log.bytes());
  REQUIRE(r.status == AofLoadStatus::loaded);
  CHECK(aoftest::dump(replayed, now) == aoftest::dump(state, now));
}

TEST_CASE("a log cut at any byte loads its complete records and reports the incomplete tail") {
  ServerState source;
  Recorder rec(source);
  Session s(source);
  for (int i = 0; i < 20; ++i) run(s, {"INCR", "n"});
  const std::string log(rec.log.bytes());
  const std::size_t record = resp({"INCR", "n"}).size();
  const std::size_t head = select0().size();
  for (std::size_t cut = 0; cut <= log.size(); ++cut) {
    ServerState state;
    AofLoadResult r = replay_aof(state, std::string_view(log).substr(0, cut));
    const std::size_t complete = cut < head ? 0 : (cut - head) / record;
    const std::size_t valid = cut < head ? 0 : head + complete * record;
    INFO("cut at " << cut);
    CHECK(r.status == (valid == cut ? AofLoadStatus::loaded : AofLoadStatus::truncated));
    CHECK(r.valid_bytes == valid);
    Entry* e = state.store().db(0).find("n", 0);
    CHECK((e == nullptr ? 0 : std::stoi(aoftest::text_of(e->value))) == static_cast<int>(complete));
  }
}

TEST_CASE("corruption before the end of the log is refused with its byte offset") {
  const std::string good = select0() + resp({"SET", "a", "1"});
  SECTION("a bad type byte") {
    ServerState state;
    AofLoadResult r = replay_aof(state, good + "?3\r\n" + resp({"SET", "b", "2"}));
    CHECK(r.status == AofLoadStatus::corrupt);
    CHECK_THAT(r.message, Catch::Contains("at byte offset " + std::to_string(good.size())));
    CHECK_THAT(r.message, Catch::Contains("expected '*', got '?'"));
    CHECK(r.valid_bytes == good.size());
  }
  SECTION("a bulk whose length does not match its bytes") {
    ServerState state;
    std::string bad = good + "*2\r\n$3\r\nDEL\r\n$5\r\nab\r\n" + resp({"SET", "b", "2"});
    AofLoadResult r = replay_aof(state, bad);
    CHECK(r.status == AofLoadStatus::corrupt);
    CHECK_THAT(r.message, Catch::Contains("record starting at byte offset " + std::to_string(good.size())));
  }
  SECTION("an unknown command") {
    ServerState state;
    AofLoadResult r = replay_aof(state, good + resp({"FROB", "x"}));
    CHECK(r.status == AofLoadStatus::corrupt);
    CHECK_THAT(r.message, Catch::Contains("unknown command 'FROB'"));
    CHECK_THAT(r.message, Catch::Contains("at byte offset " + std::to_string(good.size())));
  }
}

TEST_CASE("Redis 7 timestamp annotations in a log are skipped") {
  ServerState state;
  AofLoadResult r = replay_aof(state, "#TS:1700000000\r\n" + select0() + resp({"SET", "a", "1"}));
  CHECK(r.status == AofLoadStatus::loaded);
  CHECK(r.commands == 2);
  CHECK(state.store().db(0).find("a", 0) != nullptr);
}

TEST_CASE("keys whose absolute expiry passed are loaded, then expire as soon as they are looked at") {
  ServerState state;
  std::string log = select0() + resp({"SET", "old", "v", "PXAT", "1000"}) + resp({"INCR", "old2"}) +
                    resp({"SET", "new", "v", "PXAT", std::to_string(t0 + 60'000)});
  REQUIRE(replay_aof(state, log).status == AofLoadStatus::loaded);
  CHECK(state.store().db(0).find("old", t0) == nullptr);
  REQUIRE(state.store().db(0).find("new", t0) != nullptr);
  CHECK(state.store().db(0).expire_at(*state.store().db(0).find("new", t0)) == t0 + 60'000);
}

TEST_CASE("a log larger than the loader's read window loads, truncates and reports offsets like a small one") {
  char name[] = "/tmp/duet-aof-load-XXXXXX";
  REQUIRE(::mkdtemp(name) != nullptr);
  const std::string path = std::string(name) + "/appendonly.aof";
  std::string log = select0();
  for (int i = 0; i < 3000; ++i) log += resp({"SET", "k" + std::to_string(i), std::string(2048, 'a' + i % 26)});
  const std::string big(5 * 1024 * 1024 + 7, 'B');  // one value across several windows
  log += resp({"SET", "big", big});
  const std::size_t complete = log.size();
  auto write = [&](const std::string& bytes) {
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  };
  SECTION("whole") {
    write(log);
    ServerState state;
    AofLoadResult r = load_aof(state, path);
    CHECK(r.status == AofLoadStatus::loaded);
    CHECK(r.commands == 3002);
    CHECK(aoftest::text_of(state.store().db(0).find("big", 0)->value) == big);
    CHECK(aoftest::text_of(state.store().db(0).find("k2999", 0)->value) == std::string(2048, 'a' + 2999 % 26));
  }
  SECTION("cut inside the big value") {
    const std::size_t before_big = complete - resp({"SET", "big", big}).size();
    write(log.substr(0, complete - 100));
    ServerState state;
    AofLoadResult r = load_aof(state, path);
    CHECK(r.status == AofLoadStatus::truncated);
    CHECK(r.valid_bytes == before_big);
    CHECK(state.store().db(0).find("big", 0) == nullptr);
    CHECK(state.store().db(0).find("k2999", 0) != nullptr);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(static_cast<std::uint64_t>(st.st_size) == r.valid_bytes);
  }
  SECTION("corrupt after the first window") {
    write(log + "!garbage\r\n" + resp({"SET", "after", "x"}));
    ServerState state;
    AofLoadResult r = load_aof(state, path);
    CHECK(r.status == AofLoadStatus::corrupt);
    CHECK_THAT(r.message, Catch::Contains("at byte offset " + std::to_string(complete)));
  }
  std::filesystem::remove_all(name);
}

TEST_CASE("loading a log fires no keyspace events: it rebuilds the keyspace, it runs no client's command") {
  const std::string path =
      std::filesystem::temp_directory_path() / ("duet-notify-" + std::to_string(::getpid()) + ".aof");
  const std::string log = select0() + resp({"SET", "k", "v"}) + resp({"RPUSH", "l", "a", "b"}) +
                          resp({"HSET", "h", "f", "v"}) + resp({"DEL", "k"}) + resp({"GET", "nokey"});
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(log.data(), 1, log.size(), f);
  std::fclose(f);
  ServerConfig config;
  config.notify_keyspace_events = *parse_notify_flags("KEAnm");
  ServerState state(config);
  Session watcher(state);
  run(watcher, {"PSUBSCRIBE", "*"});
  REQUIRE(load_aof(state, path).status == AofLoadStatus::loaded);
  CHECK(state.store().db(0).find("l", 0) != nullptr);
  watcher.collect_pushes();
  CHECK(watcher.output().empty());
  std::filesystem::remove(path);
}
