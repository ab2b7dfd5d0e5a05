// Keyspace and expiry commands through Session.
#include <catch2/catch.hpp>

#include <set>

#include "kv/server_state.hpp"
#include "kv/session.hpp"
#include "kv_test_util.hpp"

using kvtest::run;

namespace {

using Fixture = kvtest::SessionFixture;

// Parses a flat RESP array of bulk strings (enough for KEYS and SCAN's keys).
std::set<std::string> bulk_set(std::string_view r) {
  std::set<std::string> out;
  std::size_t pos = r.find("\r\n") + 2;
  while (pos < r.size()) {
    std::size_t eol = r.find("\r\n", pos);
    std::size_t len = std::stoul(std::string(r.substr(pos + 1, eol - pos - 1)));
    out.emplace(r.substr(eol + 2, len));
    pos = eol + 2 + len + 2;
  }
  return out;
}

}  // namespace

TEST_CASE("DEL, UNLINK, EXISTS and TYPE count keys like Redis", "[kv][keys]") {
  Fixture f;
  f.cmd({"MSET", "a", "1", "b", "2", "c", "3"});
  CHECK(f.cmd({"EXISTS", "a", "a", "x"}) == ":2\r\n");
  CHECK(f.cmd({"TYPE", "a"}) == "+string\r\n");
  CHECK(f.cmd({"TYPE", "x"}) == "+none\r\n");
  CHECK(f.cmd({"DEL", "a", "x", "a"}) == ":1\r\n");
  CHECK(f.cmd({"UNLINK", "b", "c"}) == ":2\r\n");
  CHECK(f.cmd({"DBSIZE"}) == ":0\r\n");
}

TEST_CASE("RENAME moves the value and the TTL; RENAMENX refuses to overwrite", "[kv][keys]") {
  Fixture f;
  CHECK(f.cmd({"RENAME", "nokey", "x"}) == "-ERR no such key\r\n");
  f.cmd({"SET", "a", "1", "PX", "5000"});
  CHECK(f.cmd({"RENAME", "a", "b"}) == "+OK\r\n");
  CHECK(f.cmd({"GET", "a"}) == "$-1\r\n");
  CHECK(f.cmd({"GET", "b"}) == "$1\r\n1\r\n");
  CHECK(f.cmd({"PTTL", "b"}) == ":5000\r\n");
  CHECK(f.cmd({"RENAME", "b", "b"}) == "+OK\r\n");
  f.cmd({"SET", "c", "3"});
  CHECK(f.cmd({"RENAMENX", "b", "c"}) == ":0\r\n");
  CHECK(f.cmd({"RENAMENX", "b", "d"}) == ":1\r\n");
  CHECK(f.cmd({"GET", "d"}) == "$1\r\n1\r\n");
}

TEST_CASE("KEYS matches globs, including patterns that are exponential in Redis", "[kv][keys]") {
  Fixture f;
  f.cmd({"MSET", "user:1", "a", "user:2", "b", "item:1", "c", "hello", "d", "hallo", "e"});
  CHECK(bulk_set(f.cmd({"KEYS", "user:*"})) == std::set<std::string>{"user:1", "user:2"});
  CHECK(bulk_set(f.cmd({"KEYS", "h[ae]llo"})) == std::set<std::string>{"hello", "hallo"});
  CHECK(bulk_set(f.cmd({"KEYS", "*"})).size() == 5);
  std::string long_key(5000, 'a');
  f.cmd({"SET", long_key, "x"});
  std::string evil;
  for (int i = 0; i < 50; ++i) evil += "*?";
  evil += "b";
  CHECK(f.cmd({"KEYS", evil}) == "*0\r\n");
}

TEST_CASE("SCAN visits every key exactly once across calls, with MATCH and COUNT", "[kv][keys]") {
  Fixture f;
  for (int i = 0; i < 500; ++i) f.cmd({"SET", "k" + std::to_string(i), "v"});
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    std::string r = f.cmd({"SCAN", cursor, "COUNT", "37"});
    std::size_t a = r.find("$") , eol = r.find("\r\n", a);
    std::size_t len = std::stoul(r.substr(a + 1, eol - a - 1));
    cursor = r.substr(eol + 2, len);
    std::string keys = r.substr(eol + 2 + len + 2);
    for (const auto& k : bulk_set(keys)) CHECK(seen.insert(k).second);
    ++calls;
  } while (cursor != "0");
  CHECK(seen.size() == 500);
  CHECK(calls > 10);
  CHECK(f.cmd({"SCAN", "abc"}) == "-ERR invalid cursor\r\n");
  CHECK(f.cmd({"SCAN", "0", "COUNT", "0"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SCAN", "0", "MATCH"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SCAN", "0", "MATCH", "k42", "COUNT", "1000"}) == "*2\r\n$1\r\n0\r\n*1\r\n$3\r\nk42\r\n");
}

TEST_CASE("SCAN reads its cursor as Redis's strtoul does: zeros, a sign, no spaces, no overflow", "[kv][keys]") {
  Fixture f;
  CHECK(f.cmd({"SET", "a", "1"}) == "+OK\r\n");
  const std::string from_start = "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n";
  for (std::string cursor : {std::string(32, '0'), std::string(300, '0'), std::string("+0"), std::string("-0"),
                             std::string(), std::string("0\0x", 3), std::string("\0x", 2)}) {
    INFO("cursor '" << cursor << "'");
    CHECK(f.cmd({"SCAN", cursor}) == from_start);
  }
  CHECK(f.cmd({"SCAN", std::string(300, '0') + "18446744073709551615"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.cmd({"SCAN", "-1"}) == "*2\r\n$1\r\n0\r\n*0\r\n");  // wraps to the largest cursor
  for (std::string_view bad : {" 0", "\t0", "0 ", "0x1", "1e2", "18446744073709551616", "-18446744073709551616", "+"}) {
    INFO("cursor '" << bad << "'");
    CHECK(f.cmd({"SCAN", bad}) == "-ERR invalid cursor\r\n");
  }
}

TEST_CASE("RANDOMKEY returns an existing key, or null on an empty database", "[kv][keys]") {
  Fixture f;
  CHECK(f.cmd({"RANDOMKEY"}) == "$-1\r\n");
  f.cmd({"MSET", "a", "1", "b", "2"});
  std::string r = f.cmd({"RANDOMKEY"});
  CHECK((r == "$1\r\na\r\n" || r == "$1\r\nb\r\n"));
}

TEST_CASE("EXPIRE family with NX XX GT LT, TTL, PTTL and PERSIST", "[kv][expire]") {
  Fixture f;
  CHECK(f.cmd({"TTL", "nokey"}) == ":-2\r\n");
  CHECK(f.cmd({"EXPIRE", "nokey", "10"}) == ":0\r\n");
  f.cmd({"SET", "k", "v"});
  CHECK(f.cmd({"TTL", "k"}) == ":-1\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "10", "NX", "XX"}) ==
        "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "10", "GT", "LT"}) == "-ERR GT and LT options at the same time are not compatible\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "10", "foo"}) == "-ERR Unsupported option foo\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "abc"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "9223372036854775807"}) == "-ERR invalid expire time in 'expire' command\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "10", "XX"}) == ":0\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "10", "GT"}) == ":0\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "10", "NX"}) == ":1\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "20", "LT"}) == ":0\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "20", "GT"}) == ":1\r\n");
  CHECK(f.cmd({"TTL", "k"}) == ":20\r\n");
  CHECK(f.cmd({"PEXPIRE", "k", "1500"}) == ":1\r\n");
  CHECK(f.cmd({"PTTL", "k"}) == ":1500\r\n");
  CHECK(f.cmd({"TTL", "k"}) == ":2\r\n");
  CHECK(f.cmd({"PERSIST", "k"}) == ":1\r\n");
  CHECK(f.cmd({"PERSIST", "k"}) == ":0\r\n");
  std::string at = std::to_string(f.now / 1000 + 100);
  CHECK(f.cmd({"EXPIREAT", "k", at}) == ":1\r\n");
  CHECK(f.cmd({"TTL", "k"}) == ":100\r\n");
  CHECK(f.cmd({"PEXPIREAT", "k", std::to_string(f.now + 42)}) == ":1\r\n");
  CHECK(f.cmd({"PTTL", "k"}) == ":42\r\n");
  CHECK(f.cmd({"EXPIRE", "k", "-1"}) == ":1\r\n");  // in the past: deleted at once
  CHECK(f.cmd({"EXISTS", "k"}) == ":0\r\n");
}
