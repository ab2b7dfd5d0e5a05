// Keyspace notifications (kv/notify.hpp) through Session, no sockets: the
// flag string as Redis parses and prints it, the two channels of an event,
// the classes, expired from lazy and active expiry, nothing when off or
// when a value is only rebuilt, and, on a sharded keyspace in one thread,
// delivery to every shard's subscribers in the order fired.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "kv/notify.hpp"
#include "kv/session.hpp"
#include "kv/value/value_records.hpp"
#include "kv_test_util.hpp"
#include "shard_fixture.hpp"

using duet::kv::format_notify_flags;
using duet::kv::parse_notify_flags;
using duet::kv::Session;
using kvtest::resp;
using kvtest::run;

namespace {

// The pushes in `bytes` (message or pmessage, RESP2) as "channel payload".
std::vector<std::string> events_in(std::string_view bytes) {
  std::vector<std::string> lines;
  while (!bytes.empty()) {
    const std::size_t end = bytes.find("\r\n");
    lines.emplace_back(bytes.substr(0, end));
    bytes.remove_prefix(end + 2);
  }
  std::vector<std::string> events;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "message") {
      events.push_back(lines[i + 2] + " " + lines[i + 4]);
    } else if (lines[i] == "pmessage") {
      events.push_back(lines[i + 4] + " " + lines[i + 6]);
    }
  }
  return events;
}

// What a subscriber's driver would send next: its pushes, as events.
std::vector<std::string> pushed(Session& s) {
  s.collect_pushes();
  std::string out(s.output());
  s.consume_output(out.size());
  return events_in(out);
}

using Events = std::vector<std::string>;

// A state on a test clock with a subscriber to every keyspace channel and a
// client that runs commands.
struct Watched {
  std::int64_t now = 1'700'000'000'000;
  duet::kv::ServerState state;
  Session client{state};
  Session watcher{state};
  explicit Watched(std::string_view flags) {
    state.set_clock([this] { return now; });
    run(client, {"CONFIG", "SET", "notify-keyspace-events", flags});
    run(watcher, {"PSUBSCRIBE", "__key*__:*"});
  }
  Events after(std::initializer_list<std::string_view> command) {
    run(client, command);
    return pushed(watcher);
  }
};

}  // namespace

TEST_CASE("the class string parses and prints as Redis's notify.c does", "[kv][notify]") {
  CHECK(format_notify_flags(*parse_notify_flags("KEA")) == "AKE");
  CHECK(format_notify_flags(*parse_notify_flags("Ag$lshzxetd")) == "A");
  CHECK(format_notify_flags(*parse_notify_flags("KEg$lshzxetd")) == "AKE");  // every class of A prints as A
  CHECK(format_notify_flags(*parse_notify_flags("An")) == "A");              // Redis drops n beside A
  CHECK(format_notify_flags(*parse_notify_flags("nEmK$g")) == "g$nKEm");     // Redis's order, K E m last
  CHECK(format_notify_flags(*parse_notify_flags("dtexzhsl")) == "lshzxetd");
  CHECK(format_notify_flags(*parse_notify_flags("")) == "");
  CHECK(*parse_notify_flags("A") == duet::kv::notify_all);
  CHECK((*parse_notify_flags("A") & (duet::kv::notify_new | duet::kv::notify_key_miss)) == 0);
  CHECK_FALSE(parse_notify_flags("KEa"));
  CHECK_FALSE(parse_notify_flags(std::string_view("K\0E", 3)));
}

TEST_CASE("CONFIG SET notify-keyspace-events refuses an unknown class and changes nothing", "[kv][notify]") {
  kvtest::SessionFixture f;
  CHECK(f.cmd({"CONFIG", "SET", "notify-keyspace-events", "Elg"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "notify-keyspace-events"}) == "*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\nglE\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "notify-keyspace-events", "KEq"}) ==
        "-ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class "
        "character. Use 'Ag$lshzxeKEtmdn'.\r\n");
  CHECK(f.state.config().notify_keyspace_events == *parse_notify_flags("Elg"));
}

TEST_CASE("an event is published on its key's channel and on its event's channel", "[kv][notify]") {
  Watched w("KEA");
  CHECK(w.after({"SET", "k", "v"}) == Events{"__keyspace@0__:k set", "__keyevent@0__:set k"});
  CHECK(w.after({"LPUSH", "l", "a"}) == Events{"__keyspace@0__:l lpush", "__keyevent@0__:lpush l"});
  run(w.client, {"SELECT", "5"});
  CHECK(w.after({"DEL", "nokey", "nokey2"}).empty());
  CHECK(w.after({"SET", "k", "v", "EX", "10"}) == Events{"__keyspace@5__:k set", "__keyevent@5__:set k",
                                                         "__keyspace@5__:k expire", "__keyevent@5__:expire k"});
}

TEST_CASE("only enabled classes fire, on the channels K and E ask for", "[kv][notify]") {
  Watched w("El");
  CHECK(w.after({"SET", "k", "v"}).empty());
  CHECK(w.after({"RPUSH", "l", "a"}) == Events{"__keyevent@0__:rpush l"});
  CHECK(w.after({"RPOP", "l"}) == Events{"__keyevent@0__:rpop l"});  // the key's "del" is class g
  run(w.client, {"CONFIG", "SET", "notify-keyspace-events", "A"});    // no K, no E: nothing at all
  CHECK(w.after({"RPUSH", "l", "a"}).empty());
  run(w.client, {"CONFIG", "SET", "notify-keyspace-events", "KnmA"});
  CHECK(w.after({"GET", "nokey"}) == Events{"__keyspace@0__:nokey keymiss"});
  CHECK(w.after({"SET", "fresh", "v"}) == Events{"__keyspace@0__:fresh new", "__keyspace@0__:fresh set"});
}

TEST_CASE("a write fires Redis's events in Redis's order", "[kv][notify]") {
  Watched w("En$lgs");
  CHECK(w.after({"RPUSH", "src", "a"}) == Events{"__keyevent@0__:new src", "__keyevent@0__:rpush src"});
  CHECK(w.after({"LMOVE", "src", "dst", "LEFT", "RIGHT"}) ==
        Events{"__keyevent@0__:new dst", "__keyevent@0__:rpush dst", "__keyevent@0__:lpop src",
               "__keyevent@0__:del src"});
  CHECK(w.after({"RENAME", "dst", "other"}) ==
        Events{"__keyevent@0__:new other", "__keyevent@0__:rename_from dst", "__keyevent@0__:rename_to other"});
  CHECK(w.after({"SADD", "s", "1"}) == Events{"__keyevent@0__:new s", "__keyevent@0__:sadd s"});
  CHECK(w.after({"SADD", "s", "1"}).empty());  // nothing added: no event
  CHECK(w.after({"SINTERSTORE", "s2", "s", "nokey"}).empty());  // empty result, no target to delete
  CHECK(w.after({"APPEND", "s3", ""}) == Events{"__keyevent@0__:new s3", "__keyevent@0__:append s3"});
}

TEST_CASE("a key found expired by a read fires expired, then the read's keymiss", "[kv][notify]") {
  Watched w("KExm");
  run(w.client, {"SET", "k", "v", "PX", "100"});
  pushed(w.watcher);
  w.now += 101;
  CHECK(w.after({"GET", "k"}) == Events{"__keyspace@0__:k expired", "__keyevent@0__:expired k",
                                        "__keyspace@0__:k keymiss", "__keyevent@0__:keymiss k"});
}

TEST_CASE("active expiry fires expired for keys nobody reads", "[kv][notify]") {
  Watched w("Ex");
  run(w.client, {"SET", "a", "v", "PX", "100"});
  run(w.client, {"SELECT", "3"});
  run(w.client, {"SET", "b", "v", "PX", "100"});
  w.now += 101;
  CHECK(w.state.store().active_expire_cycle(w.now, 100) == 2);
  Events got = pushed(w.watcher);
  std::sort(got.begin(), got.end());
  CHECK(got == Events{"__keyevent@0__:expired a", "__keyevent@3__:expired b"});
}

TEST_CASE("with notifications off nothing is published", "[kv][notify]") {
  Watched w("");
  CHECK(w.after({"SET", "k", "v"}).empty());
  CHECK(w.after({"GET", "nokey"}).empty());
  run(w.client, {"SET", "t", "v", "PX", "1"});
  w.now += 2;
  CHECK(w.after({"GET", "t"}).empty());
  CHECK(w.state.staged_events().empty());
}

TEST_CASE("a value rebuilt from its records fires nothing", "[kv][notify]") {
  Watched w("KEAnm");
  run(w.client, {"RPUSH", "l", "a", "b"});
  run(w.client, {"HSET", "h", "f", "v"});
  pushed(w.watcher);
  duet::kv::Keyspace& db = w.state.store().db(0);
  const std::string list = duet::kv::ValueRecords::encode(db.find("l", w.now)->value, "l2");
  const std::string hash = duet::kv::ValueRecords::encode(db.find("h", w.now)->value, "h2");
  duet::kv::ValueRecords::replay(w.state, w.state.store(), 0, list + hash, w.now);
  CHECK(run(w.client, {"LRANGE", "l2", "0", "-1"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(pushed(w.watcher).empty());
}

namespace {

using kvtest::FakeShards;
using kvtest::ShardClient;

std::string ask(FakeShards& fake, ShardClient& client, const std::string& bytes) {
  client.send(bytes);
  kvtest::settle(fake, {&client});
  return client.take();
}

Events shard_pushed(FakeShards& fake, ShardClient& watcher) {
  fake.pump();
  watcher.session.collect_pushes();
  watcher.drain();
  return events_in(watcher.take());
}

std::size_t queued(const FakeShards& fake) {
  std::size_t n = 0;
  for (const auto& q : fake.queues) n += q.size();
  return n;
}

}  // namespace

TEST_CASE("an event fired on one shard reaches the subscribers of every shard, in the order fired",
          "[kv][notify][shard]") {
  FakeShards fake(3);
  ShardClient writer(fake, 0), near(fake, 0), far(fake, 2);
  ask(fake, writer, resp({"CONFIG", "SET", "notify-keyspace-events", "E$g"}));
  ask(fake, near, resp({"PSUBSCRIBE", "__keyevent@0__:*"}));
  ask(fake, far, resp({"SUBSCRIBE", "__keyevent@0__:set", "__keyevent@0__:del"}));
  const std::string own = fake.key_on(0), other = fake.key_on(1);
  writer.send(resp({"SET", own, "1"}) + resp({"SET", other, "2"}) + resp({"DEL", own}) + resp({"SET", own, "3"}));
  kvtest::settle(fake, {&writer});
  const Events own_events{"__keyevent@0__:set " + own, "__keyevent@0__:del " + own, "__keyevent@0__:set " + own};
  Events at_far = shard_pushed(fake, far);
  Events at_near = shard_pushed(fake, near);
  // Each shard's events in the order they fired there; shard 1's on their own.
  std::erase(at_far, "__keyevent@0__:set " + other);
  std::erase(at_near, "__keyevent@0__:set " + other);
  CHECK(at_far == own_events);
  CHECK(at_near == own_events);
}

TEST_CASE("with no subscriber on any shard an event sends no message", "[kv][notify][shard]") {
  FakeShards fake(2);
  ShardClient writer(fake, 0), watcher(fake, 1);
  ask(fake, writer, resp({"CONFIG", "SET", "notify-keyspace-events", "KEA"}));
  const std::string own = fake.key_on(0);
  writer.send(resp({"SET", own, "1"}));
  CHECK(queued(fake) == 0);
  CHECK(fake.cluster.shard(0).state().staged_events().empty());
  ask(fake, watcher, resp({"SUBSCRIBE", "__keyspace@0__:" + own}));
  writer.send(resp({"SET", own, "2"}) + resp({"INCR", own}));
  CHECK(queued(fake) == 2);  // a parcel per command to the listening shard
  CHECK(shard_pushed(fake, watcher) == Events{"__keyspace@0__:" + own + " set", "__keyspace@0__:" + own + " incrby"});
  ask(fake, watcher, resp({"UNSUBSCRIBE"}));
  writer.send(resp({"SET", own, "3"}));
  CHECK(queued(fake) == 0);
}

TEST_CASE("a command gathered over several shards fires its events once; moving values fires none",
          "[kv][notify][shard]") {
  FakeShards fake(2);
  ShardClient writer(fake, 0), watcher(fake, 1);
  ask(fake, writer, resp({"CONFIG", "SET", "notify-keyspace-events", "KEAnm"}));
  const std::string a = fake.key_on(0, "s"), b = fake.key_on(1, "s");
  ask(fake, writer, resp({"SADD", a, "x", "y"}));
  ask(fake, watcher, resp({"PSUBSCRIBE", "__keyevent@*"}));
  CHECK(ask(fake, writer, resp({"SMOVE", a, b, "x"})) == ":1\r\n");
  CHECK(shard_pushed(fake, watcher) == Events{"__keyevent@0__:srem " + a, "__keyevent@0__:new " + b,
                                               "__keyevent@0__:sadd " + b});
  CHECK(ask(fake, writer, resp({"SUNIONSTORE", a, a, b})) == ":2\r\n");
  CHECK(shard_pushed(fake, watcher) == Events{"__keyevent@0__:sunionstore " + a});
}

TEST_CASE("MSETNX over several shards fires its sets, not its probe's misses", "[kv][notify][shard]") {
  FakeShards fake(2);
  ShardClient writer(fake, 0), watcher(fake, 1);
  ask(fake, writer, resp({"CONFIG", "SET", "notify-keyspace-events", "Em$"}));
  ask(fake, watcher, resp({"PSUBSCRIBE", "*"}));
  const std::string a = fake.key_on(0), b = fake.key_on(1);
  CHECK(ask(fake, writer, resp({"MSETNX", a, "1", b, "2"})) == ":1\r\n");
  Events got = shard_pushed(fake, watcher);
  Events want{"__keyevent@0__:set " + a, "__keyevent@0__:set " + b};
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());  // the key names depend on the hash's seed
  CHECK(got == want);
}

TEST_CASE("RENAME across shards fires each key's events on its shard", "[kv][notify][shard]") {
  FakeShards fake(2);
  ShardClient writer(fake, 0), watcher(fake, 0);
  ask(fake, writer, resp({"CONFIG", "SET", "notify-keyspace-events", "Eg"}));
  ask(fake, watcher, resp({"PSUBSCRIBE", "*"}));
  const std::string a = fake.key_on(0), b = fake.key_on(1);
  ask(fake, writer, resp({"SET", a, "v"}));
  CHECK(ask(fake, writer, resp({"RENAME", a, b})) == "+OK\r\n");
  Events got = shard_pushed(fake, watcher);
  std::sort(got.begin(), got.end());
  CHECK(got == Events{"__keyevent@0__:rename_from " + a, "__keyevent@0__:rename_to " + b});
}
