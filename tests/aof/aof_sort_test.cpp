// What SORT logs: nothing for a read or a STORE that changed nothing, the
// command as sent when it is deterministic, and what it did (DEL, RPUSH)
// when its patterns read other keys — so the log replays to the same data
// without those keys' help, on any number of shards.
#include <catch2/catch.hpp>

#include "aof/aof_test_util.hpp"
#include "kv/aof/aof_loader.hpp"
#include "kv/kv_test_util.hpp"
#include "kv/session.hpp"

using namespace duet::kv;
using aoftest::Recorder;
using kvtest::resp;
using kvtest::run;

TEST_CASE("SORT without STORE, and a STORE that changed nothing, log nothing") {
  ServerState state;
  Recorder rec(state);
  Session s(state);
  run(s, {"RPUSH", "l", "2", "1"});
  const std::size_t before = rec.log.size();
  CHECK(run(s, {"SORT", "l"}) == "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
  CHECK(run(s, {"SORT", "nokey", "STORE", "d"}) == ":0\r\n");  // d never existed
  CHECK(run(s, {"SORT", "l", "FOO", "STORE", "d"}) == "-ERR syntax error\r\n");
  CHECK(rec.log.size() == before);
}

TEST_CASE("SORT ... STORE is logged as sent, or as DEL and RPUSH when its patterns read other keys") {
  ServerState state;
  Recorder rec(state);
  Session s(state);
  run(s, {"RPUSH", "l", "2", "1", "3"});
  run(s, {"MSET", "w_1", "30", "w_2", "20", "w_3", "10"});
  const std::size_t before = rec.log.size();
  CHECK(run(s, {"SORT", "l", "DESC", "STORE", "d"}) == ":3\r\n");
  CHECK(run(s, {"SORT", "l", "BY", "w_*", "GET", "#", "STORE", "p"}) == ":3\r\n");
  CHECK(run(s, {"SORT", "nokey", "BY", "w_*", "STORE", "p"}) == ":0\r\n");  // deletes p
  CHECK(rec.log.bytes().substr(before) == resp({"SORT", "l", "DESC", "STORE", "d"}) + resp({"DEL", "p"}) +
                                              resp({"RPUSH", "p", "3", "2", "1"}) + resp({"DEL", "p"}));
  ServerState replayed;
  REQUIRE(replay_aof(replayed, rec.log.bytes()).status == AofLoadStatus::loaded);
  CHECK(aoftest::dump(replayed, 0) == aoftest::dump(state, 0));
}
