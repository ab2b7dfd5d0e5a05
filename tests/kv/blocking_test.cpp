// The blocking list commands through Session on one shard (kv/blocking/):
// served at once, blocked and served in arrival order by a later push,
// timed out, kept out of transactions, gone without a trace.
#include <catch2/catch.hpp>

#include <string>

#include "kv/blocking/blocking.hpp"
#include "kv_test_util.hpp"

using kvtest::resp;
using kvtest::SessionFixture;

namespace {

// What a blocked session has to say once woken: its answer and what ran after it.
std::string answer(duet::kv::Session& s) {
  s.collect_pushes();
  std::string out(s.output());
  s.consume_output(out.size());
  return out;
}

}  // namespace

TEST_CASE("blpop on a non-empty list answers at once with the key and the value", "[kv][blocking]") {
  SessionFixture f;
  f.cmd({"rpush", "b", "1", "2"});
  CHECK(f.cmd({"blpop", "a", "b", "0"}) == "*2\r\n$1\r\nb\r\n$1\r\n1\r\n");
  CHECK(f.cmd({"brpop", "b", "0"}) == "*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"exists", "b"}) == ":0\r\n");
  f.cmd({"set", "s", "x"});
  CHECK(f.cmd({"blpop", "s", "0"}) == "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
}

TEST_CASE("blocked clients are served first come first served by later pushes", "[kv][blocking]") {
  SessionFixture f;
  duet::kv::Session first(f.state), second(f.state), pusher(f.state);
  CHECK(kvtest::run(first, {"blpop", "q", "0"}).empty());
  CHECK(kvtest::run(second, {"blpop", "other", "q", "0"}).empty());
  CHECK(first.blocked());
  CHECK(kvtest::run(pusher, {"rpush", "q", "a"}) == ":1\r\n");
  CHECK(answer(first) == "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
  CHECK(second.blocked());
  CHECK(answer(second).empty());
  kvtest::run(pusher, {"rpush", "q", "b", "c"});
  CHECK(answer(second) == "*2\r\n$1\r\nq\r\n$1\r\nb\r\n");
  CHECK(kvtest::run(pusher, {"lrange", "q", "0", "-1"}) == "*1\r\n$1\r\nc\r\n");
}

TEST_CASE("commands sent while blocked run once the client is served", "[kv][blocking]") {
  SessionFixture f;
  duet::kv::Session waiter(f.state), pusher(f.state);
  CHECK(kvtest::talk(waiter, resp({"blmove", "src", "dst", "right", "left", "0"}) + resp({"ping"})).empty());
  CHECK(kvtest::talk(waiter, resp({"echo", "later"})).empty());
  kvtest::run(pusher, {"rpush", "src", "x"});
  CHECK(answer(waiter) == "$1\r\nx\r\n+PONG\r\n$5\r\nlater\r\n");
  CHECK(kvtest::run(pusher, {"lrange", "dst", "0", "-1"}) == "*1\r\n$1\r\nx\r\n");
}

TEST_CASE("a blocked client times out with a null reply of its command's kind", "[kv][blocking]") {
  SessionFixture f;
  CHECK(f.cmd({"blmpop", "0.25", "1", "q", "left"}).empty());
  CHECK(f.session.block_wait_ms() == 250);
  f.session.timed_out();  // too early: still blocked
  CHECK(f.session.blocked());
  f.now += 250;
  CHECK(f.session.block_wait_ms() == 0);
  f.session.timed_out();
  CHECK(answer(f.session) == "*-1\r\n");
  CHECK(f.cmd({"blmove", "q", "d", "left", "left", "0.001"}).empty());
  f.now += 1;
  f.session.timed_out();
  CHECK(answer(f.session) == "*-1\r\n");  // a null array, as Redis's blocked.c (a null only when it cannot block)
  CHECK(f.cmd({"blpop", "q", "0"}).empty());
  CHECK(f.session.block_wait_ms() == -1);  // 0: for ever
}

TEST_CASE("blocking commands inside exec do not block", "[kv][blocking][multi]") {
  SessionFixture f;
  f.cmd({"multi"});
  f.cmd({"blpop", "q", "0"});
  f.cmd({"blmove", "q", "d", "left", "left", "0"});
  CHECK(f.cmd({"exec"}) == "*2\r\n*-1\r\n$-1\r\n");
}

TEST_CASE("a push inside a transaction serves blocked clients only after exec", "[kv][blocking][multi]") {
  SessionFixture f;
  duet::kv::Session waiter(f.state);
  kvtest::run(waiter, {"blpop", "q", "0"});
  f.cmd({"multi"});
  f.cmd({"rpush", "q", "a", "b"});
  f.cmd({"llen", "q"});
  CHECK(f.cmd({"exec"}) == "*2\r\n:2\r\n:2\r\n");
  CHECK(answer(waiter) == "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
}

TEST_CASE("a client that goes while blocked leaves no trace", "[kv][blocking]") {
  SessionFixture f;
  {
    duet::kv::Session gone(f.state);
    kvtest::run(gone, {"brpop", "q", "0"});
    CHECK(f.state.store().has_blocked());
  }
  CHECK_FALSE(f.state.store().has_blocked());
  f.cmd({"rpush", "q", "kept"});
  CHECK(f.cmd({"lrange", "q", "0", "-1"}) == "*1\r\n$4\r\nkept\r\n");
}

TEST_CASE("timeouts are checked as redis checks them", "[kv][blocking]") {
  SessionFixture f;
  CHECK(f.cmd({"blpop", "q", "-1"}) == "-ERR timeout is negative\r\n");
  CHECK(f.cmd({"blpop", "q", "nan"}) == "-ERR timeout is not a float or out of range\r\n");
  CHECK(f.cmd({"blpop", "q", "1x"}) == "-ERR timeout is not a float or out of range\r\n");
  CHECK(f.cmd({"brpoplpush", "q", "d", "-0.5"}) == "-ERR timeout is negative\r\n");
  CHECK(f.cmd({"blmpop", "0", "0", "q", "left"}) == "-ERR numkeys should be greater than 0\r\n");
  CHECK(f.cmd({"blmpop", "0", "1", "q", "up"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"blmove", "q", "d", "up", "left", "0"}) == "-ERR syntax error\r\n");
}

TEST_CASE("client pause write holds writes but not reads until unpause or its end", "[kv][blocking][pause]") {
  SessionFixture f;
  duet::kv::Session writer(f.state), admin(f.state);
  CHECK(f.cmd({"client", "pause", "500", "write"}) == "+OK\r\n");
  CHECK(kvtest::talk(writer, resp({"get", "k"}) + resp({"set", "k", "v"}) + resp({"get", "k"})) == "$-1\r\n");
  CHECK(writer.blocked());
  CHECK(writer.block_wait_ms() == 500);
  f.now += 500;  // the pause ends by itself: the held SET runs, then what came after it
  writer.timed_out();
  CHECK(answer(writer) == "+OK\r\n$1\r\nv\r\n");
  CHECK(f.cmd({"client", "pause", "10000"}) == "+OK\r\n");  // ALL: even CLIENT UNPAUSE waits
  CHECK(kvtest::run(admin, {"client", "unpause"}).empty());
  CHECK(kvtest::run(writer, {"ping"}).empty());
  f.state.unpause();
  duet::kv::resume_postponed(f.state);
  CHECK(answer(admin) == "+OK\r\n");
  CHECK(answer(writer) == "+PONG\r\n");
  CHECK(f.cmd({"info", "clients"}).find("blocked_clients:0") != std::string::npos);
}

TEST_CASE("client reply off and skip drop replies and on brings them back", "[kv][client-reply]") {
  SessionFixture f;
  CHECK(kvtest::talk(f.session, resp({"client", "reply", "skip"}) + resp({"set", "a", "1"}) + resp({"get", "a"})) ==
        "$1\r\n1\r\n");
  CHECK(kvtest::talk(f.session, resp({"client", "reply", "off"}) + resp({"set", "b", "2"}) + resp({"get", "b"}) +
                                    resp({"client", "reply", "on"}) + resp({"get", "b"})) == "+OK\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"client", "reply", "maybe"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"client", "no-evict", "on"}) == "+OK\r\n");
  CHECK(f.cmd({"client", "info"}).find("flags=e ") != std::string::npos);
}

TEST_CASE("client unblock answers a blocked client with a timeout or an error", "[kv][blocking]") {
  SessionFixture f;
  duet::kv::Session waiter(f.state);
  kvtest::run(waiter, {"blpop", "q", "0"});
  const std::string id = std::to_string(waiter.client().id);
  CHECK(f.cmd({"client", "unblock", id}) == ":1\r\n");
  CHECK(answer(waiter) == "*-1\r\n");
  CHECK(f.cmd({"client", "unblock", id}) == ":0\r\n");  // not blocked any more
  kvtest::run(waiter, {"brpoplpush", "q", "d", "0"});
  CHECK(f.cmd({"client", "unblock", id, "error"}) == ":1\r\n");
  CHECK(answer(waiter) == "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  CHECK(f.cmd({"wait", "0", "0"}) == ":0\r\n");
  CHECK(kvtest::run(waiter, {"wait", "1", "0"}).empty());  // no replica will ever answer: blocks
  CHECK(f.cmd({"client", "unblock", id}) == ":1\r\n");
  CHECK(answer(waiter) == ":0\r\n");
}
