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
