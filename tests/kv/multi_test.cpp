// MULTI/EXEC/DISCARD/WATCH/UNWATCH through Session on one shard: Redis 7.0's
// replies (multi.c, tests/unit/multi.tcl) and the log a transaction leaves.
#include <catch2/catch.hpp>

#include <string>

#include "kv_test_util.hpp"

using kvtest::SessionFixture;

TEST_CASE("multi queues commands and exec runs them in order as one array reply", "[kv][multi]") {
  SessionFixture f;
  CHECK(f.cmd({"multi"}) == "+OK\r\n");
  CHECK(f.cmd({"set", "a", "1"}) == "+QUEUED\r\n");
  CHECK(f.cmd({"incr", "a"}) == "+QUEUED\r\n");
  CHECK(f.cmd({"get", "a"}) == "+QUEUED\r\n");
  CHECK(f.cmd({"get", "a"}) == "+QUEUED\r\n");
  CHECK(f.cmd({"exec"}) == "*4\r\n+OK\r\n:2\r\n$1\r\n2\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"exec"}) == "-ERR EXEC without MULTI\r\n");
}

TEST_CASE("queue-time errors abort exec and run-time errors do not", "[kv][multi]") {
  SessionFixture f;
  f.cmd({"multi"});
  CHECK(f.cmd({"set", "a"}) == "-ERR wrong number of arguments for 'set' command\r\n");
  CHECK(f.cmd({"nosuchcommand"}).starts_with("-ERR unknown command 'nosuchcommand'"));
  CHECK(f.cmd({"set", "b", "1"}) == "+QUEUED\r\n");
  CHECK(f.cmd({"exec"}) == "-EXECABORT Transaction discarded because of previous errors.\r\n");
  CHECK(f.cmd({"exists", "b"}) == ":0\r\n");

  f.cmd({"multi"});
  f.cmd({"lpush", "b", "x"});
  f.cmd({"incr", "b"});
  f.cmd({"set", "c", "1"});
  CHECK(f.cmd({"exec"}) == "*3\r\n:1\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n+OK\r\n");
}

TEST_CASE("nested multi, watch inside multi and discard answer as redis does", "[kv][multi]") {
  SessionFixture f;
  CHECK(f.cmd({"discard"}) == "-ERR DISCARD without MULTI\r\n");
  f.cmd({"multi"});
  CHECK(f.cmd({"multi"}) == "-ERR MULTI calls can not be nested\r\n");
  CHECK(f.cmd({"watch", "a"}) == "-ERR WATCH inside MULTI is not allowed\r\n");
  CHECK(f.cmd({"shutdown"}) == "-ERR Command not allowed inside a transaction\r\n");
  f.cmd({"set", "a", "1"});
  CHECK(f.cmd({"discard"}) == "+OK\r\n");
  CHECK(f.cmd({"get", "a"}) == "$-1\r\n");
  // MULTI nested and WATCH inside are errors but do not abort (Redis: not rejectCommand)
  f.cmd({"multi"});
  f.cmd({"multi"});
  f.cmd({"set", "a", "2"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+OK\r\n");
}

TEST_CASE("a watched key written by another client makes exec answer a null array", "[kv][multi]") {
  SessionFixture f;
  duet::kv::Session other(f.state);
  f.cmd({"set", "x", "30"});
  CHECK(f.cmd({"watch", "x"}) == "+OK\r\n");
  kvtest::run(other, {"set", "x", "40"});
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*-1\r\n");
  // the watch is gone after EXEC: the same sequence now runs
  kvtest::run(other, {"set", "x", "50"});
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+PONG\r\n");
}

TEST_CASE("writes that change nothing leave a watch intact and unwatch forgets it", "[kv][multi]") {
  SessionFixture f;
  duet::kv::Session other(f.state);
  f.cmd({"watch", "x", "y"});
  kvtest::run(other, {"del", "x"});          // :0, nothing deleted
  kvtest::run(other, {"set", "y", "1", "xx"});  // nil, nothing set
  kvtest::run(other, {"set", "z", "1"});     // another key
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+PONG\r\n");
  f.cmd({"watch", "x"});
  f.cmd({"unwatch"});
  kvtest::run(other, {"set", "x", "1"});
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+PONG\r\n");
}

TEST_CASE("watch remembers the database and flushes touch only the keys that existed", "[kv][multi]") {
  SessionFixture f;
  duet::kv::Session other(f.state);
  f.cmd({"set", "x", "1"});
  f.cmd({"watch", "x"});
  kvtest::run(other, {"select", "1"});
  kvtest::run(other, {"set", "x", "2"});  // db 1's x: not the watched one
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+PONG\r\n");

  f.cmd({"watch", "absent"});
  kvtest::run(other, {"flushall"});
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+PONG\r\n");

  f.cmd({"set", "x", "1"});
  f.cmd({"watch", "x"});
  kvtest::run(other, {"select", "0"});
  kvtest::run(other, {"flushdb"});
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*-1\r\n");
}

TEST_CASE("a watched key that expires fails exec but a key stale at watch time does not", "[kv][multi]") {
  SessionFixture f;
  f.cmd({"set", "x", "1", "px", "100"});
  f.cmd({"watch", "x"});
  f.now += 200;  // expired, not yet removed: EXEC sees it (isWatchedKeyExpired)
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*-1\r\n");

  f.cmd({"set", "y", "1", "px", "100"});
  f.now += 200;
  f.cmd({"watch", "y"});                 // stale already
  CHECK(f.cmd({"exists", "y"}) == ":0\r\n");  // lazy expiry deletes it: no logical change
  f.cmd({"multi"});
  f.cmd({"ping"});
  CHECK(f.cmd({"exec"}) == "*1\r\n+PONG\r\n");
}

TEST_CASE("reset and disconnect clear multi and watch state", "[kv][multi]") {
  SessionFixture f;
  f.cmd({"multi"});
  f.cmd({"set", "a", "1"});
  CHECK(f.cmd({"reset"}) == "+RESET\r\n");
  CHECK(f.cmd({"exec"}) == "-ERR EXEC without MULTI\r\n");
  {
    duet::kv::Session gone(f.state);
    kvtest::run(gone, {"watch", "a", "b"});
    CHECK(f.state.store().watching());
  }
  CHECK_FALSE(f.state.store().watching());
}

TEST_CASE("exec past maxmemory is refused whole when a queued command may grow memory", "[kv][multi]") {
  SessionFixture f;
  duet::kv::Session admin(f.state);
  f.cmd({"set", "big", std::string(4096, 'x')});
  f.cmd({"multi"});
  f.cmd({"set", "a", "1"});
  f.cmd({"get", "a"});
  kvtest::run(admin, {"config", "set", "maxmemory", "1"});
  CHECK(f.cmd({"exec"}) ==
        "-EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'.\r\n");
  f.cmd({"multi"});
  f.cmd({"get", "big"});
  CHECK(f.cmd({"exec"}).starts_with("*1\r\n$4096\r\n"));
}

