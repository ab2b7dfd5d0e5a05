// Pub/sub in the sans-I/O core (kv/pubsub.hpp, commands_pubsub.cpp) through
// Session: every reply compared byte for byte with what redis-server 7.0.15
// sends, counting, patterns, the subscribed context, RESET, the output limit
// and the rule that a push never touches bytes a driver may be sending.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "kv/pubsub.hpp"
#include "kv/server_state.hpp"
#include "kv/session.hpp"
#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using duet::kv::ServerState;
using duet::kv::Session;
using kvtest::run;
using Fixture = kvtest::SessionFixture;

namespace {

std::string bulk(std::string_view s) { return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n"; }

std::string confirm(std::string_view kind, std::string_view name, int count) {
  return "*3\r\n" + bulk(kind) + bulk(name) + ":" + std::to_string(count) + "\r\n";
}

std::string message(std::string_view channel, std::string_view text) {
  return "*3\r\n$7\r\nmessage\r\n" + bulk(channel) + bulk(text);
}

std::string pmessage(std::string_view pattern, std::string_view channel, std::string_view text) {
  return "*4\r\n$8\r\npmessage\r\n" + bulk(pattern) + bulk(channel) + bulk(text);
}

// What a driver would send next: replies, then the pushes that arrived.
std::string drain(Session& s) {
  s.collect_pushes();
  std::string out(s.output());
  s.consume_output(out.size());
  return out;
}

constexpr std::string_view context_tail =
    "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n";

int closed_fd = -1;  // the client closer's recorder (a plain function pointer)

}  // namespace

TEST_CASE("subscribe confirms each channel with the client's subscription count", "[kv][pubsub]") {
  Fixture f;
  CHECK(f.cmd({"SUBSCRIBE", "c1", "c2", "c1"}) ==
        confirm("subscribe", "c1", 1) + confirm("subscribe", "c2", 2) + confirm("subscribe", "c1", 2));
  CHECK(f.cmd({"PSUBSCRIBE", "c*", "d?"}) == confirm("psubscribe", "c*", 3) + confirm("psubscribe", "d?", 4));
  CHECK(f.cmd({"PUNSUBSCRIBE", "d?", "zz"}) == confirm("punsubscribe", "d?", 3) + confirm("punsubscribe", "zz", 3));
  CHECK(f.cmd({"PUNSUBSCRIBE"}) == confirm("punsubscribe", "c*", 2));
  std::string all = f.cmd({"UNSUBSCRIBE"});  // channel order is a hash order, in Redis too
  CHECK(all.size() == 2 * confirm("unsubscribe", "c1", 1).size());
  CHECK(all.find(bulk("c1")) != std::string::npos);
  CHECK(all.find(bulk("c2")) != std::string::npos);
  CHECK(all.substr(all.size() - 4) == ":0\r\n");
  CHECK(f.cmd({"PING"}) == "+PONG\r\n");
}

TEST_CASE("unsubscribing with nothing subscribed answers once with a null name", "[kv][pubsub]") {
  Fixture f;
  CHECK(f.cmd({"UNSUBSCRIBE"}) == "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n");
  CHECK(f.cmd({"PUNSUBSCRIBE"}) == "*3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n");
  CHECK(f.cmd({"UNSUBSCRIBE", "x"}) == confirm("unsubscribe", "x", 0));
  CHECK(f.cmd({"PSUBSCRIBE", "p*"}) == confirm("psubscribe", "p*", 1));
  CHECK(f.cmd({"UNSUBSCRIBE"}) == "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:1\r\n");
  CHECK(f.cmd({"SUBSCRIBE"}) == "-ERR wrong number of arguments for 'subscribe' command\r\n");
}

TEST_CASE("publish delivers message and pmessage and counts a client once per match", "[kv][pubsub]") {
  Fixture f;
  Session sub(f.state);
  run(sub, {"SUBSCRIBE", "c1", "c2"});
  run(sub, {"PSUBSCRIBE", "c*", "d?"});
  Session other(f.state);
  run(other, {"PSUBSCRIBE", "*1"});
  CHECK(f.cmd({"PUBLISH", "c1", "hello"}) == ":3\r\n");
  CHECK(drain(sub) == message("c1", "hello") + pmessage("c*", "c1", "hello"));
  CHECK(drain(other) == pmessage("*1", "c1", "hello"));
  CHECK(f.cmd({"PUBLISH", "zz", "x"}) == ":0\r\n");
  CHECK(f.cmd({"PUBLISH", "d7", std::string(100, 'v')}) == ":1\r\n");
  CHECK(drain(sub) == pmessage("d?", "d7", std::string(100, 'v')));
  CHECK(drain(other).empty());
  CHECK(f.cmd({"PUBLISH", "a"}) == "-ERR wrong number of arguments for 'publish' command\r\n");
}

TEST_CASE("a subscribed client may only (un)subscribe, ping, quit or reset", "[kv][pubsub]") {
  Fixture f;
  f.cmd({"SUBSCRIBE", "c"});
  CHECK(f.cmd({"GET", "k"}) == "-ERR Can't execute 'get" + std::string(context_tail));
  CHECK(f.cmd({"get", "k"}) == "-ERR Can't execute 'get" + std::string(context_tail));
  CHECK(f.cmd({"CONFIG", "GET", "x"}) == "-ERR Can't execute 'config|get" + std::string(context_tail));
  CHECK(f.cmd({"CLIENT", "LIST"}) == "-ERR Can't execute 'client|list" + std::string(context_tail));
  CHECK(f.cmd({"PUBLISH", "c", "m"}) == "-ERR Can't execute 'publish" + std::string(context_tail));
  CHECK(f.cmd({"PING"}) == "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  CHECK(f.cmd({"PING", "hi"}) == "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n");
  CHECK(f.cmd({"GET"}) == "-ERR wrong number of arguments for 'get' command\r\n");  // arity comes first
  CHECK(f.cmd({"UNSUBSCRIBE", "c"}) == confirm("unsubscribe", "c", 0));
  CHECK(f.cmd({"GET", "k"}) == "$-1\r\n");
  CHECK(f.cmd({"QUIT"}) == "+OK\r\n");
}

TEST_CASE("PUBSUB CHANNELS, NUMSUB, NUMPAT and HELP", "[kv][pubsub]") {
  Fixture f;
  Session a(f.state), b(f.state);
  run(a, {"SUBSCRIBE", "c1", "c2"});
  run(b, {"SUBSCRIBE", "c1"});
  run(b, {"PSUBSCRIBE", "x*", "y*"});
  run(a, {"PSUBSCRIBE", "x*"});
  std::string channels = f.cmd({"PUBSUB", "CHANNELS"});
  CHECK((channels == "*2\r\n" + bulk("c1") + bulk("c2") || channels == "*2\r\n" + bulk("c2") + bulk("c1")));
  CHECK(f.cmd({"PUBSUB", "CHANNELS", "*1"}) == "*1\r\n" + bulk("c1"));
  CHECK(f.cmd({"PUBSUB", "NUMSUB", "c1", "zz"}) == "*4\r\n" + bulk("c1") + ":2\r\n" + bulk("zz") + ":0\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMSUB"}) == "*0\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMPAT"}) == ":2\r\n");  // distinct patterns, as Redis 7.0 counts
  CHECK(f.cmd({"PUBSUB", "SHARDCHANNELS"}) == "*0\r\n");
  CHECK(f.cmd({"PUBSUB", "HELP"}).rfind("*14\r\n+PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n", 0) == 0);
  CHECK(f.cmd({"PUBSUB"}) == "-ERR wrong number of arguments for 'pubsub' command\r\n");
  CHECK(f.cmd({"PUBSUB", "FOO"}) == "-ERR unknown subcommand 'FOO'. Try PUBSUB HELP.\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMPAT", "x"}) == "-ERR wrong number of arguments for 'pubsub|numpat' command\r\n");
  CHECK(f.cmd({"PUBSUB", "CHANNELS", "a", "b"}) ==
        "-ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.\r\n");
  std::string info = f.cmd({"INFO", "stats"});
  CHECK(info.find("pubsub_channels:2\r\npubsub_patterns:2\r\n") != std::string::npos);
}

TEST_CASE("a subscriber that goes away leaves every channel and pattern at once", "[kv][pubsub]") {
  Fixture f;
  auto sub = std::make_unique<Session>(f.state);
  run(*sub, {"SUBSCRIBE", "a", "b"});
  run(*sub, {"PSUBSCRIBE", "*"});
  CHECK(f.cmd({"PUBLISH", "a", "m"}) == ":2\r\n");  // the queued pushes die with it
  sub.reset();
  CHECK(f.cmd({"PUBLISH", "a", "m"}) == ":0\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMSUB", "a"}) == "*2\r\n" + bulk("a") + ":0\r\n");
  CHECK(f.cmd({"PUBSUB", "CHANNELS"}) == "*0\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMPAT"}) == ":0\r\n");
}

TEST_CASE("RESET leaves subscribed mode, db 0, the name and the authentication", "[kv][pubsub]") {
  Fixture f;
  f.state.config().requirepass = "pw";
  CHECK(f.cmd({"AUTH", "pw"}) == "+OK\r\n");
  f.cmd({"CLIENT", "SETNAME", "me"});
  f.cmd({"SELECT", "3"});
  f.cmd({"SUBSCRIBE", "c"});
  f.cmd({"PSUBSCRIBE", "p*"});
  CHECK(f.cmd({"RESET"}) == "+RESET\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMPAT"}) == "-NOAUTH Authentication required.\r\n");
  CHECK(f.cmd({"AUTH", "pw"}) == "+OK\r\n");
  CHECK(f.cmd({"PING"}) == "+PONG\r\n");
  CHECK(f.cmd({"CLIENT", "GETNAME"}) == "$-1\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMSUB", "c"}) == "*2\r\n" + bulk("c") + ":0\r\n");
  CHECK(f.cmd({"PUBSUB", "NUMPAT"}) == ":0\r\n");
  CHECK(f.cmd({"CLIENT", "INFO"}).find(" db=0 ") != std::string::npos);
  CHECK(f.cmd({"RESET", "x"}) == "-ERR wrong number of arguments for 'reset' command\r\n");
}

TEST_CASE("CLIENT LIST shows sub, psub and the P flag, and TYPE pubsub lists subscribers", "[kv][pubsub]") {
  Fixture f;
  Session sub(f.state);  // id 2
  run(sub, {"SUBSCRIBE", "a", "b"});
  run(sub, {"PSUBSCRIBE", "p*"});
  std::string list = f.cmd({"CLIENT", "LIST"});
  CHECK(list.find("id=2 ") != std::string::npos);
  CHECK(list.find(" flags=P db=0 sub=2 psub=1 ssub=0 ") != std::string::npos);
  CHECK(list.find(" flags=N db=0 sub=0 psub=0 ssub=0 ") != std::string::npos);
  std::string pubsub = f.cmd({"CLIENT", "LIST", "TYPE", "pubsub"});
  CHECK(pubsub.find("id=2 ") != std::string::npos);
  CHECK(pubsub.find("id=1 ") == std::string::npos);
  std::string normal = f.cmd({"CLIENT", "LIST", "TYPE", "normal"});
  CHECK(normal.find("id=1 ") != std::string::npos);
  CHECK(normal.find("id=2 ") == std::string::npos);
}

TEST_CASE("pushes wait in the queue and never touch the output a driver is sending", "[kv][pubsub]") {
  Fixture f;
  Session sub(f.state);
  run(sub, {"SUBSCRIBE", "c"});
  sub.feed(kvtest::resp({"PING"}));
  // The driver is "sending" this view; a publish burst must leave it intact.
  const std::string_view in_flight = sub.output();
  const std::string copy(in_flight);
  for (int i = 0; i < 1000; ++i) f.cmd({"PUBLISH", "c", std::string(100, 'x')});
  CHECK(sub.output().data() == in_flight.data());
  CHECK(std::string(sub.output()) == copy);
  CHECK(sub.has_pushes());
  sub.consume_output(in_flight.size());
  std::string pushed = drain(sub);
  CHECK(pushed.size() == 1000 * message("c", std::string(100, 'x')).size());
  CHECK_FALSE(sub.has_pushes());
}

TEST_CASE("pushes that arrived before a command go out before its reply", "[kv][pubsub]") {
  Fixture f;
  Session sub(f.state);
  run(sub, {"SUBSCRIBE", "c"});
  f.cmd({"PUBLISH", "c", "first"});
  CHECK(run(sub, {"PING", "second"}) == message("c", "first") + "*2\r\n$4\r\npong\r\n$6\r\nsecond\r\n");
}

TEST_CASE("the waker runs when the queue becomes non-empty, not for every push", "[kv][pubsub]") {
  Fixture f;
  Session sub(f.state);
  run(sub, {"SUBSCRIBE", "c"});
  int wakes = 0;
  sub.set_push_waker([](void* n) noexcept { ++*static_cast<int*>(n); }, &wakes);
  f.cmd({"PUBLISH", "c", "1"});
  f.cmd({"PUBLISH", "c", "2"});
  CHECK(wakes == 1);
  drain(sub);
  f.cmd({"PUBLISH", "c", "3"});
  CHECK(wakes == 2);
}

TEST_CASE("a subscriber over the hard limit is dropped at once and its queue freed", "[kv][pubsub]") {
  Fixture f;
  closed_fd = -1;
  f.state.set_client_closer([](int fd) { closed_fd = fd; });
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 10kb 0 0"}) == "+OK\r\n");
  Session sub(f.state, 42);
  run(sub, {"SUBSCRIBE", "c"});
  int wakes = 0;
  sub.set_push_waker([](void* n) noexcept { ++*static_cast<int*>(n); }, &wakes);
  const std::string text(1000, 'x');
  int delivered = 0;
  for (int i = 0; i < 20; ++i) delivered += f.cmd({"PUBLISH", "c", text}) == ":1\r\n" ? 1 : 0;
  CHECK(delivered == 10);  // 10 pushes of ~1030 bytes cross 10 KiB; later ones skip the dropped client
  CHECK(sub.closing());
  CHECK(closed_fd == 42);
  CHECK(wakes == 2);  // the first push and the drop
  CHECK_FALSE(sub.has_pushes());
  CHECK(f.cmd({"PUBSUB", "NUMSUB", "c"}) == "*2\r\n" + bulk("c") + ":1\r\n");  // until its session ends
}

TEST_CASE("a subscriber over the soft limit for soft-seconds is dropped", "[kv][pubsub]") {
  Fixture f;
  f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 2kb 10"});
  Session sub(f.state);
  run(sub, {"SUBSCRIBE", "c"});
  const std::string text(1000, 'x');
  for (int i = 0; i < 3; ++i) f.cmd({"PUBLISH", "c", text});  // over 2 KiB from now
  f.now += 9'000;
  CHECK(f.cmd({"PUBLISH", "c", text}) == ":1\r\n");
  CHECK_FALSE(sub.closing());
  drain(sub);  // back under the soft limit: the clock starts again
  for (int i = 0; i < 3; ++i) f.cmd({"PUBLISH", "c", text});
  f.now += 9'000;
  f.cmd({"PUBLISH", "c", text});
  CHECK_FALSE(sub.closing());
  f.now += 1'000;
  f.cmd({"PUBLISH", "c", text});
  CHECK(sub.closing());
  CHECK(f.cmd({"PUBLISH", "c", text}) == ":0\r\n");
}

TEST_CASE("CONFIG GET and SET client-output-buffer-limit in Redis's format", "[kv][pubsub]") {
  Fixture f;
  auto get = [&] { return f.cmd({"CONFIG", "GET", "client-output-buffer-limit"}); };
  auto value = [](std::string_view v) {
    return "*2\r\n$26\r\nclient-output-buffer-limit\r\n" + bulk(v);
  };
  auto failed = [](std::string_view why) {
    return "-ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - " +
           std::string(why) + "\r\n";
  };
  CHECK(get() == value("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"));
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 10"}) == "+OK\r\n");
  CHECK(get() == value("normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 10"));
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb"}) ==
        failed("Wrong number of arguments in buffer limit configuration."));
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "foo 1 1 1"}) ==
        failed("Invalid client class specified in buffer limit configuration."));
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "pubsub x 1 1"}) ==
        failed("Error in hard, soft or soft_seconds setting in buffer limit configuration."));
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 1 1 -1"}) ==
        failed("Error in hard, soft or soft_seconds setting in buffer limit configuration."));
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 replica 1 2 3"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "client-output-buffer-limit", ""}) == "+OK\r\n");
  CHECK(get() == value("normal 0 0 0 slave 1 2 3 pubsub 1048576 524288 10"));
  CHECK(f.state.config().pubsub_limit.hard == 1048576);
}

TEST_CASE("COMMAND INFO describes the pub/sub commands as Redis 7.0 does", "[kv][pubsub]") {
  Fixture f;
  CHECK(f.cmd({"COMMAND", "INFO", "subscribe", "publish"}) ==
        "*2\r\n*10\r\n$9\r\nsubscribe\r\n:-2\r\n*4\r\n+pubsub\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n"
        "*2\r\n+@pubsub\r\n+@slow\r\n*0\r\n*0\r\n*0\r\n"
        "*10\r\n$7\r\npublish\r\n:3\r\n*4\r\n+pubsub\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n:0\r\n"
        "*2\r\n+@pubsub\r\n+@fast\r\n*0\r\n*0\r\n*0\r\n");
  CHECK(f.cmd({"COMMAND", "INFO", "reset"}) ==
        "*1\r\n*10\r\n$5\r\nreset\r\n:1\r\n*6\r\n+noscript\r\n+loading\r\n+stale\r\n+fast\r\n+no_auth\r\n"
        "+allow_busy\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n");
}

TEST_CASE("CONFIG SET timeout never closes a subscriber", "[kv][pubsub]") {
  Fixture f;
  f.cmd({"CONFIG", "SET", "timeout", "10"});
  Session sub(f.state), idle(f.state);
  run(sub, {"SUBSCRIBE", "c"});
  f.now += 11'000;
  f.state.close_idle_clients(f.now);
  CHECK(idle.closing());
  CHECK_FALSE(sub.closing());
  Session pub(f.state);
  CHECK(run(pub, {"PUBLISH", "c", "m"}) == ":1\r\n");
}

TEST_CASE("publishing to 1,000 subscribers reuses their buffers once warm", "[kv][pubsub]") {
  Fixture f;
  std::vector<std::unique_ptr<Session>> subs;
  for (int i = 0; i < 1000; ++i) {
    subs.push_back(std::make_unique<Session>(f.state));
    run(*subs.back(), {"SUBSCRIBE", "news"});
  }
  auto round = [&] {
    CHECK(f.cmd({"PUBLISH", "news", "hello"}) == ":1000\r\n");
    std::vector<const char*> queues;
    for (auto& s : subs) queues.push_back(s->client().subscriber->queue().data());
    for (auto& s : subs) CHECK(drain(*s) == message("news", "hello"));
    return queues;
  };
  round();
  round();  // the queue and the output have each been grown once and swap places
  const auto before = round();
  round();
  const auto after = round();  // the same buffers as two rounds ago: no allocation per push
  CHECK(before == after);
}

TEST_CASE("shard channels are a namespace of their own, counted on their own", "[kv][pubsub]") {
  Fixture f;
  Session sub(f.state);
  CHECK(run(sub, {"SUNSUBSCRIBE"}) == "*3\r\n$12\r\nsunsubscribe\r\n$-1\r\n:0\r\n");
  CHECK(run(sub, {"SSUBSCRIBE", "s1", "s2", "s1"}) ==
        confirm("ssubscribe", "s1", 1) + confirm("ssubscribe", "s2", 2) + confirm("ssubscribe", "s1", 2));
  CHECK(run(sub, {"GET", "k"}) == "-ERR Can't execute 'get" + std::string(context_tail));
  CHECK(run(sub, {"SUBSCRIBE", "c"}) == confirm("subscribe", "c", 1));  // shard channels not counted
  CHECK(f.cmd({"SPUBLISH", "s1", "hi"}) == ":1\r\n");
  CHECK(f.cmd({"PUBLISH", "s1", "x"}) == ":0\r\n");
  CHECK(f.cmd({"SPUBLISH", "c", "y"}) == ":0\r\n");
  CHECK(drain(sub) == "*3\r\n$8\r\nsmessage\r\n" + bulk("s1") + bulk("hi"));
  CHECK(f.cmd({"PUBSUB", "SHARDNUMSUB", "s1", "zz"}) == "*4\r\n" + bulk("s1") + ":1\r\n" + bulk("zz") + ":0\r\n");
  CHECK(f.cmd({"PUBSUB", "SHARDCHANNELS", "*1"}) == "*1\r\n" + bulk("s1"));
  CHECK(f.cmd({"PUBSUB", "NUMSUB", "s1"}) == "*2\r\n" + bulk("s1") + ":0\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID", "2"}).find(" sub=1 psub=0 ssub=2 ") != std::string::npos);
  CHECK(f.cmd({"INFO", "stats"}).find("pubsubshard_channels:2\r\n") != std::string::npos);
  CHECK(run(sub, {"SUNSUBSCRIBE", "s1"}) == confirm("sunsubscribe", "s1", 1));
  CHECK(run(sub, {"SUNSUBSCRIBE"}) == confirm("sunsubscribe", "s2", 0));
  CHECK(run(sub, {"SSUBSCRIBE", "q"}) == confirm("ssubscribe", "q", 1));
  CHECK(run(sub, {"RESET"}) == "+RESET\r\n");
  CHECK(f.cmd({"PUBSUB", "SHARDCHANNELS"}) == "*0\r\n");
}

namespace {

std::string ask(kvtest::FakeShards& fake, kvtest::ShardClient& client, const std::vector<std::string>& argv) {
  client.send(kvtest::resp(argv));
  kvtest::settle(fake, {&client});
  return client.take();
}

}  // namespace

// Redis counts names, not subscriptions: a channel or pattern subscribed from
// connections on two shards is one channel or pattern (pubsub.c's dicts),
// while NUMSUB and PUBLISH count subscribers, which live on one shard each.
TEST_CASE("over shards, a channel or pattern subscribed on several shards counts once", "[kv][pubsub][shard]") {
  const std::size_t shards = GENERATE(2u, 3u);
  kvtest::FakeShards fake(shards);
  std::vector<std::unique_ptr<kvtest::ShardClient>> subs;
  for (std::size_t s = 0; s < shards; ++s) {
    auto& c = *subs.emplace_back(std::make_unique<kvtest::ShardClient>(fake, s));
    ask(fake, c, {"PSUBSCRIBE", "news.*"});
    ask(fake, c, {"SUBSCRIBE", "chan"});
    ask(fake, c, {"SSUBSCRIBE", "sc"});
  }
  ask(fake, *subs.back(), {"PSUBSCRIBE", "o*"});
  ask(fake, *subs.back(), {"SUBSCRIBE", "other"});
  kvtest::ShardClient p(fake, shards - 1);
  CHECK(ask(fake, p, {"PUBSUB", "NUMPAT"}) == ":2\r\n");
  CHECK(ask(fake, p, {"PUBSUB", "NUMSUB", "chan", "other"}) ==
        "*4\r\n" + bulk("chan") + ":" + std::to_string(shards) + "\r\n" + bulk("other") + ":1\r\n");
  const std::string channels = ask(fake, p, {"PUBSUB", "CHANNELS"});
  CHECK((channels == "*2\r\n" + bulk("chan") + bulk("other") || channels == "*2\r\n" + bulk("other") + bulk("chan")));
  CHECK(ask(fake, p, {"PUBSUB", "SHARDCHANNELS"}) == "*1\r\n" + bulk("sc"));
  const std::string info = ask(fake, p, {"INFO", "stats"});
  CHECK(info.find("pubsub_channels:2\r\npubsub_patterns:2\r\npubsubshard_channels:1\r\n") != std::string::npos);
  CHECK(ask(fake, p, {"PUBLISH", "news.x", "m"}) == ":" + std::to_string(shards) + "\r\n");
  CHECK(ask(fake, p, {"PUBLISH", "other", "m"}) == ":2\r\n");  // channel and pattern: one client, twice
}
