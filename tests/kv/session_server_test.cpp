// CLIENT, CONFIG and the server-wide limits (maxmemory, timeout) through
// Session: replies compared byte for byte with what redis-server 7.0 sends.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kv/server_state.hpp"
#include "kv/session.hpp"
#include "kv_test_util.hpp"

using duet::kv::Session;
using kvtest::run;
using Fixture = kvtest::SessionFixture;

namespace {

std::string config_failed(std::string_view param, std::string_view why) {
  return "-ERR CONFIG SET failed (possibly related to argument '" + std::string(param) + "') - " + std::string(why) +
         "\r\n";
}

std::string config_pair(std::string_view name, std::string_view value) {
  return "*2\r\n$" + std::to_string(name.size()) + "\r\n" + std::string(name) + "\r\n$" +
         std::to_string(value.size()) + "\r\n" + std::string(value) + "\r\n";
}

constexpr std::string_view oom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

}  // namespace

TEST_CASE("CLIENT ID, SETNAME, GETNAME and LIST", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"CLIENT", "GETNAME"}) == "$-1\r\n");
  CHECK(f.cmd({"CLIENT", "SETNAME", "a b"}) ==
        "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  CHECK(f.cmd({"CLIENT", "SETNAME", "app"}) == "+OK\r\n");
  CHECK(f.cmd({"CLIENT", "GETNAME"}) == "$3\r\napp\r\n");
  CHECK(f.cmd({"CLIENT", "ID", "x"}) == "-ERR wrong number of arguments for 'client|id' command\r\n");
  CHECK(f.cmd({"CLIENT", "foo"}) == "-ERR unknown subcommand 'foo'. Try CLIENT HELP.\r\n");
  Session other(f.state);
  std::string list = f.cmd({"CLIENT", "LIST"});
  CHECK(list.find("id=1 ") != std::string::npos);
  CHECK(list.find("name=app") != std::string::npos);
  CHECK(list.find("id=2 ") != std::string::npos);
  CHECK(f.cmd({"CLIENT", "ID"}) == ":1\r\n");
}

TEST_CASE("CLIENT LIST takes one filter, and ids that name no client list nothing", "[kv][session]") {
  Fixture f;
  Session other(f.state);  // id 2
  CHECK(f.cmd({"CLIENT", "LIST", "TYPE", "normal", "ID", "999999"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID", "999999", "TYPE", "normal"}) == "-ERR Invalid client ID\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID", "0"}) == "$0\r\n\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID", "-1"}) == "$0\r\n\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID", "999999"}) == "$0\r\n\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID", "01"}) == "-ERR Invalid client ID\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "ID"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "TYPE"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "TYPE", "normal", "TYPE", "normal"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "TYPE", "bogus"}) == "-ERR Unknown client type 'bogus'\r\n");
  CHECK(f.cmd({"CLIENT", "LIST", "TYPE", "PubSub"}) == "$0\r\n\r\n");
  // Redis looks each id up in the order given, once per mention.
  std::string listed = f.cmd({"CLIENT", "LIST", "ID", "2", "1", "2"});
  const std::size_t a = listed.find("\r\nid=2 ");
  const std::size_t b = listed.find("\nid=1 ", a + 1);
  const std::size_t c = listed.find("\nid=2 ", b + 1);
  CHECK(a == listed.find("\r\n"));
  CHECK(b != std::string::npos);
  CHECK(c != std::string::npos);
}

TEST_CASE("CONFIG GET and SET the server's parameters", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"CONFIG", "GET", "save"}) == "*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "appendonly"}) == "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "maxclients"}) == "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
  CHECK(f.cmd({"CONFIG", "GET"}) == "-ERR wrong number of arguments for 'config|get' command\r\n");
  CHECK(f.cmd({"CONFIG", "foo"}) == "-ERR unknown subcommand 'foo'. Try CONFIG HELP.\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "foo", "bar"}) ==
        "-ERR Unknown option or number of arguments for CONFIG SET - 'foo'\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "maxclients", "5"}) == "+OK\r\n");
  CHECK(f.state.config().maxclients == 5);
  CHECK(f.cmd({"CONFIG", "SET", "port", "1"}) == config_failed("port", "can't set immutable config"));
  CHECK(f.cmd({"CONFIG", "SET", "maxclients", "0"}) ==
        config_failed("maxclients", "argument must be between 1 and 4294967295 inclusive"));
  CHECK(f.cmd({"CONFIG", "SET", "maxclients", "x"}) ==
        config_failed("maxclients", "argument couldn't be parsed into an integer"));
  CHECK(f.cmd({"CONFIG", "SET", "appendfsync", "x"}) ==
        config_failed("appendfsync", "argument(s) must be one of the following: everysec, always, no"));
}

TEST_CASE("CONFIG SET checks every name before any value and changes nothing on an error", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"CONFIG", "SET", "loglevel", "notice", "loglevel", "warning"}) ==
        config_failed("loglevel", "duplicate parameter"));
  CHECK(f.cmd({"CONFIG", "SET", "maxclients", "5", "loglevel", "warning", "LOGLEVEL", "debug"}) ==
        config_failed("LOGLEVEL", "duplicate parameter"));
  CHECK(f.cmd({"CONFIG", "SET", "loglevel", "bogus", "nope", "1"}) ==
        "-ERR Unknown option or number of arguments for CONFIG SET - 'nope'\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "PORT", "1", "loglevel", "bogus"}) == config_failed("PORT", "can't set immutable config"));
  // A bad value names the parameter as Redis spells it, not as typed.
  CHECK(f.cmd({"CONFIG", "SET", "maxclients", "5", "LOGLEVEL", "bogus"}) ==
        config_failed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning"));
  CHECK(f.state.config().loglevel == "notice");
  CHECK(f.state.config().maxclients == 10000);
}

TEST_CASE("CONFIG SET hz, timeout and maxmemory take effect and CONFIG GET reads them back", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"CONFIG", "SET", "hz", "100", "timeout", "30", "maxmemory", "100mb"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "hz"}) == config_pair("hz", "100"));
  CHECK(f.cmd({"CONFIG", "GET", "timeout"}) == config_pair("timeout", "30"));
  CHECK(f.cmd({"CONFIG", "GET", "maxmemory"}) == config_pair("maxmemory", "104857600"));
  CHECK(f.state.config().hz == 100);
  // hz is a hint: Redis keeps it within 1..500.
  CHECK(f.cmd({"CONFIG", "SET", "hz", "0"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "hz"}) == config_pair("hz", "1"));
  CHECK(f.cmd({"CONFIG", "SET", "hz", "1000"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "hz"}) == config_pair("hz", "500"));
  CHECK(f.cmd({"CONFIG", "SET", "hz", "-1"}) == config_failed("hz", "argument must be between 0 and 2147483647 inclusive"));
  CHECK(f.cmd({"CONFIG", "SET", "timeout", "2147483648"}) ==
        config_failed("timeout", "argument must be between 0 and 2147483647 inclusive"));
  CHECK(f.cmd({"CONFIG", "SET", "timeout", "+5"}) == config_failed("timeout", "argument couldn't be parsed into an integer"));
  // maxmemory is a memory value as Redis's memtoull reads it.
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", "1.5"}) == config_failed("maxmemory", "argument must be a memory value"));
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", "-1"}) == config_failed("maxmemory", "argument must be a memory value"));
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", "01Kb"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "maxmemory"}) == config_pair("maxmemory", "1024"));
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", "18446744073709551616"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "maxmemory"}) == config_pair("maxmemory", "18446744073709551615"));
  CHECK(f.cmd({"CONFIG", "SET", "hz", "10", "timeout", "0", "maxmemory", "0"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "maxmemory-policy"}) == config_pair("maxmemory-policy", "noeviction"));
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory-policy", "noeviction"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}) ==
        config_failed("maxmemory-policy", "duet evicts nothing: only noeviction is supported"));
}

TEST_CASE("past maxmemory, commands that may grow memory get OOM and all others still run", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"SET", "a", "1"}) == "+OK\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", "1"}) == "+OK\r\n");
  for (auto args : {std::initializer_list<std::string_view>{"SET", "k", "v"}, {"INCR", "a"}, {"APPEND", "a", "x"},
                    {"MSET", "k", "v"}, {"SETRANGE", "a", "0", "x"}, {"GETSET", "a", "2"}}) {
    CHECK(f.cmd(args) == oom);
  }
  CHECK(f.cmd({"GET", "a"}) == "$1\r\n1\r\n");
  CHECK(f.cmd({"INFO", "memory"}).find("\r\nmaxmemory:1\r\nmaxmemory_human:1B\r\nmaxmemory_policy:noeviction\r\n") !=
        std::string::npos);
  CHECK(f.cmd({"COMMAND", "INFO", "set"}).rfind("*1\r\n*10\r\n$3\r\nset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n", 0) == 0);
  CHECK(f.cmd({"EXPIRE", "a", "100"}) == ":1\r\n");
  CHECK(f.cmd({"DEL", "a"}) == ":1\r\n");
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", "0"}) == "+OK\r\n");
  CHECK(f.cmd({"SET", "k", "v"}) == "+OK\r\n");
  // A real budget: 64 KiB above what is used now holds about 64 values of 1 KiB.
  const std::string value(1024, 'x');
  const std::size_t limit = f.state.store().used_memory() + 64 * 1024;
  CHECK(f.cmd({"CONFIG", "SET", "maxmemory", std::to_string(limit)}) == "+OK\r\n");
  int stored = 0;
  while (stored < 1000 && f.cmd({"SET", "key" + std::to_string(stored), value}) == "+OK\r\n") ++stored;
  CHECK(stored > 32);
  CHECK(stored < 70);
  CHECK(f.state.store().used_memory() > limit);
  CHECK(f.cmd({"SET", "one-more", "v"}) == oom);
  for (int i = 0; i < 8; ++i) CHECK(f.cmd({"DEL", "key" + std::to_string(i)}) == ":1\r\n");
  CHECK(f.cmd({"SET", "one-more", "v"}) == "+OK\r\n");
}

namespace {
std::vector<int> closed_fds;  // what the test's client closer was asked to close
}

TEST_CASE("timeout closes clients idle for longer than that many seconds, and only those", "[kv][session]") {
  Fixture f;
  closed_fds.clear();
  f.state.set_client_closer([](int fd) { closed_fds.push_back(fd); });
  Session idle(f.state, 7);
  Session busy(f.state, 8);
  f.now += 3600 * 1000;
  f.state.close_idle_clients(f.now);  // timeout 0: never
  CHECK(closed_fds.empty());
  CHECK_FALSE(idle.closing());
  CHECK(f.cmd({"CONFIG", "SET", "timeout", "2"}) == "+OK\r\n");
  CHECK(run(busy, {"PING"}) == "+PONG\r\n");
  CHECK(run(idle, {"PING"}) == "+PONG\r\n");
  f.now += 2000;
  CHECK(run(busy, {"PING"}) == "+PONG\r\n");
  f.state.close_idle_clients(f.now);  // idle for exactly 2 s: not longer
  CHECK(closed_fds.empty());
  f.now += 1000;
  f.state.close_idle_clients(f.now);
  CHECK(closed_fds == std::vector<int>{7});
  CHECK(idle.closing());
  CHECK(f.session.closing());  // fd -1: nothing to shut down, but the session closes
  CHECK_FALSE(busy.closing());
  CHECK(run(idle, {"PING"}).empty());  // a closed client's commands never run
  f.now += 2000;
  f.state.close_idle_clients(f.now);
  CHECK(closed_fds == std::vector<int>{7, 8});
}

TEST_CASE("a client sending one long command in pieces is not idle", "[kv][session]") {
  Fixture f;
  closed_fds.clear();
  f.state.set_client_closer([](int fd) { closed_fds.push_back(fd); });
  Session uploader(f.state, 9);
  CHECK(f.cmd({"CONFIG", "SET", "timeout", "2"}) == "+OK\r\n");
  const std::string command = kvtest::resp({"SET", "big", std::string(3000, 'v')});
  for (std::size_t sent = 0; sent < 3000; sent += 1000) {  // one piece a second
    f.now += 1000;
    f.state.close_idle_clients(f.now);
    CHECK(kvtest::talk(uploader, std::string_view(command).substr(sent, 1000)).empty());
  }
  f.now += 1000;
  f.state.close_idle_clients(f.now);
  CHECK(closed_fds.empty());
  CHECK(kvtest::talk(uploader, std::string_view(command).substr(3000)) == "+OK\r\n");
}

// Redis's writeToClient updates lastinteraction too: sending replies is activity.
TEST_CASE("a client whose replies took longer than timeout to send is not idle", "[kv][session]") {
  Fixture f;
  closed_fds.clear();
  f.state.set_client_closer([](int fd) { closed_fds.push_back(fd); });
  Session reader(f.state, 9);
  CHECK(f.cmd({"CONFIG", "SET", "timeout", "2"}) == "+OK\r\n");
  reader.feed(kvtest::resp({"PING"}));
  CHECK(reader.output() == "+PONG\r\n");
  f.now += 3000;  // the client read its reply slowly: the send took 3 s
  reader.consume_output(reader.output().size());
  f.state.close_idle_clients(f.now);
  CHECK(closed_fds.empty());
  CHECK_FALSE(reader.closing());
}

// configGetCommand (Redis 7.0): a name with no glob character is looked up as
// typed and answered in that spelling; a pattern answers Redis's spellings; a
// parameter asked for twice, in any case or by a pattern too, is listed once,
// under its first spelling. (Redis lists them in its dict's order, which a
// random hash seed changes at every start; duet lists them as first asked.)
TEST_CASE("CONFIG GET answers a plain name as typed, a pattern's matches as Redis spells them, each once",
          "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"CONFIG", "GET", "MAXMEMORY", "hz"}) == "*4\r\n$9\r\nMAXMEMORY\r\n$1\r\n0\r\n$2\r\nhz\r\n$2\r\n10\r\n");
  CHECK(f.cmd({"CONFIG", "GET", "hz", "hz", "HZ"}) == config_pair("hz", "10"));
  CHECK(f.cmd({"CONFIG", "GET", "Hz", "h?"}) == config_pair("Hz", "10"));
  CHECK(f.cmd({"CONFIG", "GET", "H?", "HZ"}) == config_pair("hz", "10"));
  CHECK(f.cmd({"CONFIG", "GET", "h\\z"}) == "*0\r\n");  // no glob character: a name, and no parameter is called that
  CHECK(f.cmd({"CONFIG", "GET", "nosuch", "*nosuch*"}) == "*0\r\n");
  const std::string max = f.cmd({"CONFIG", "GET", "MAXMEMORY", "*MAX*"});
  // then maxclients, proto-max-bulk-len, maxmemory-policy and the types' twelve *-max-* thresholds (aliases too)
  CHECK(max.rfind("*32\r\n$9\r\nMAXMEMORY\r\n$1\r\n0\r\n", 0) == 0);
  CHECK(max.find("$9\r\nmaxmemory\r\n") == std::string::npos);
  CHECK(max.find("$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n") != std::string::npos);
}

// selectCommand reads the index with getIntFromObjectOrReply: first a long
// long, then an int, each with its own error, and only then the DB range.
TEST_CASE("SELECT refuses an index beyond an int as Redis does, before the database range", "[kv][session]") {
  Fixture f;
  const std::string int_range = "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n";
  CHECK(f.cmd({"SELECT", "4294967296"}) == int_range);
  CHECK(f.cmd({"SELECT", "2147483648"}) == int_range);
  CHECK(f.cmd({"SELECT", "-2147483649"}) == int_range);
  CHECK(f.cmd({"SELECT", "2147483647"}) == "-ERR DB index is out of range\r\n");
  CHECK(f.cmd({"SELECT", "-1"}) == "-ERR DB index is out of range\r\n");
  CHECK(f.cmd({"SELECT", "9223372036854775808"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SELECT", "+1"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SELECT", "15"}) == "+OK\r\n");
}
