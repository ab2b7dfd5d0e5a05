// A transaction in the append-only file: one MULTI ... EXEC block, replayed
// whole or not at all (kv/multi/transaction.hpp, kv/aof/aof_loader.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "aof/aof_test_util.hpp"
#include "kv/aof/aof_loader.hpp"
#include "kv/kv_test_util.hpp"

using kvtest::SessionFixture;

TEST_CASE("a transaction logs its writes as one multi exec block and replays whole", "[kv][multi][aof]") {
  SessionFixture f;
  aoftest::Recorder rec(f.state);
  f.cmd({"multi"});
  f.cmd({"set", "a", "1"});
  f.cmd({"get", "a"});
  f.cmd({"select", "2"});
  f.cmd({"incr", "n"});
  f.cmd({"exec"});
  const std::string log(rec.log.bytes());
  CHECK(log == kvtest::resp({"SELECT", "0"}) + kvtest::resp({"MULTI"}) + kvtest::resp({"SET", "a", "1"}) + kvtest::resp({"SELECT", "2"}) +
                   kvtest::resp({"incr", "n"}) + kvtest::resp({"EXEC"}));

  duet::kv::ServerState replayed;
  auto whole = duet::kv::replay_aof(replayed, log);
  CHECK(whole.status == duet::kv::AofLoadStatus::loaded);
  CHECK(replayed.store().db(2).size() == 1);
  duet::kv::ServerState cut;
  auto part = duet::kv::replay_aof(cut, log.substr(0, log.size() - kvtest::resp({"EXEC"}).size()));
  CHECK(part.status == duet::kv::AofLoadStatus::truncated);
  CHECK(part.valid_bytes == kvtest::resp({"SELECT", "0"}).size());
  CHECK(cut.store().db(0).size() == 0);
}

TEST_CASE("a transaction with one write logs it alone", "[kv][multi][aof]") {
  SessionFixture f;
  aoftest::Recorder rec(f.state);
  f.cmd({"multi"});
  f.cmd({"set", "a", "1"});
  f.cmd({"get", "a"});
  f.cmd({"exec"});
  CHECK(std::string(rec.log.bytes()) == kvtest::resp({"SELECT", "0"}) + kvtest::resp({"SET", "a", "1"}));
}
