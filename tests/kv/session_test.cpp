// Commands through Session, with no sockets: replies compared byte for byte
// with what redis-server 7.0 sends.
#include <catch2/catch.hpp>

#include "kv/command_table.hpp"
#include "kv/server_state.hpp"
#include "kv/session.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv_test_util.hpp"

using duet::kv::ServerConfig;
using duet::kv::ServerState;
using duet::kv::Session;
using kvtest::talk;
using kvtest::run;

using Fixture = kvtest::SessionFixture;

TEST_CASE("PING, ECHO and QUIT answer like Redis; QUIT closes after the reply", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"PING"}) == "+PONG\r\n");
  CHECK(f.cmd({"ping", "hi"}) == "$2\r\nhi\r\n");
  CHECK(f.cmd({"PING", "a", "b"}) == "-ERR wrong number of arguments for 'ping' command\r\n");
  CHECK(f.cmd({"ECHO", "x"}) == "$1\r\nx\r\n");
  CHECK_FALSE(f.session.closing());
  CHECK(talk(f.session, "QUIT\r\nPING\r\n") == "+OK\r\n");
  CHECK(f.session.closing());
}

TEST_CASE("unknown commands and wrong arity keep the connection open", "[kv][session]") {
  Fixture f;
  CHECK(talk(f.session, "foo bar baz\r\n") == "-ERR unknown command 'foo', with args beginning with: 'bar' 'baz' \r\n");
  CHECK(talk(f.session, "foo\r\n") == "-ERR unknown command 'foo', with args beginning with: \r\n");
  CHECK(talk(f.session, "get\r\n") == "-ERR wrong number of arguments for 'get' command\r\n");
  CHECK_FALSE(f.session.closing());
}

TEST_CASE("empty commands get no reply, also on a shard of a sharded keyspace", "[kv][session]") {
  Fixture f;
  CHECK(talk(f.session, "*0\r\n*-1\r\n\r\nPING\r\n") == "+PONG\r\n");
  duet::kv::KvCluster cluster(2, ServerConfig{});  // no transport: PING and empty commands never need one
  Session sharded(cluster.shard(0).state(), -1, &cluster.shard(0));
  CHECK(talk(sharded, "*0\r\n*-1\r\n\r\nPING\r\n") == "+PONG\r\n");
  CHECK_FALSE(sharded.closing());
}

TEST_CASE("a protocol error is the last reply, after those of earlier commands", "[kv][session]") {
  Fixture f;
  CHECK(talk(f.session, "PING\r\n*x\r\nPING\r\n") == "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n");
  CHECK(f.session.closing());
  CHECK(talk(f.session, "PING\r\n").empty());
}

TEST_CASE("pipelined commands all run and their replies come out in order", "[kv][session]") {
  Fixture f;
  std::string in;
  std::string want;
  for (int i = 0; i < 1000; ++i) {
    in += kvtest::resp({"SET", "k" + std::to_string(i), std::to_string(i)});
    want += "+OK\r\n";
  }
  for (int i = 0; i < 1000; ++i) {
    in += kvtest::resp({"GET", "k" + std::to_string(i)});
    want += "$" + std::to_string(std::to_string(i).size()) + "\r\n" + std::to_string(i) + "\r\n";
  }
  CHECK(talk(f.session, in) == want);
}

TEST_CASE("SET options follow Redis: NX, XX, GET, EX/PX/EXAT/PXAT, KEEPTTL", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"SET", "k", "v", "EX", "0"}) == "-ERR invalid expire time in 'set' command\r\n");
  CHECK(f.cmd({"SET", "k", "v", "EX", "-1"}) == "-ERR invalid expire time in 'set' command\r\n");
  CHECK(f.cmd({"SET", "k", "v", "EX", "abc"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SET", "k", "v", "PX", "9223372036854775807"}) == "-ERR invalid expire time in 'set' command\r\n");
  CHECK(f.cmd({"SET", "k", "v", "NX", "XX"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SET", "k", "v", "KEEPTTL", "EX", "10"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SET", "k", "v", "foo"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SET", "k", "v", "GET"}) == "$-1\r\n");
  CHECK(f.cmd({"SET", "k", "w", "GET"}) == "$1\r\nv\r\n");
  CHECK(f.cmd({"SET", "k", "x", "NX"}) == "$-1\r\n");
  CHECK(f.cmd({"SET", "n", "x", "XX"}) == "$-1\r\n");
  CHECK(f.cmd({"SET", "k", "x", "XX", "PX", "1000"}) == "+OK\r\n");
  CHECK(f.cmd({"PTTL", "k"}) == ":1000\r\n");
  CHECK(f.cmd({"SET", "k", "y", "KEEPTTL"}) == "+OK\r\n");
  CHECK(f.cmd({"PTTL", "k"}) == ":1000\r\n");
  CHECK(f.cmd({"SET", "k", "z"}) == "+OK\r\n");
  CHECK(f.cmd({"PTTL", "k"}) == ":-1\r\n");
  CHECK(f.cmd({"SET", "k", "z", "EXAT", "1"}) == "+OK\r\n");
  CHECK(f.cmd({"GET", "k"}) == "$-1\r\n");
}

TEST_CASE("keys expire lazily on access and actively without being touched", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"SET", "a", "1", "PX", "100"}) == "+OK\r\n");
  CHECK(f.cmd({"SET", "b", "1", "PX", "100"}) == "+OK\r\n");
  CHECK(f.cmd({"DBSIZE"}) == ":2\r\n");
  f.now += 100;
  CHECK(f.cmd({"GET", "a"}) == "$1\r\n1\r\n");  // expires when now > expire time
  f.now += 1;
  CHECK(f.cmd({"GET", "a"}) == "$-1\r\n");
  CHECK(f.state.store().db(0).size() == 1);
  CHECK(f.state.store().active_expire_cycle(f.now, 100) == 1);
  CHECK(f.cmd({"DBSIZE"}) == ":0\r\n");
  CHECK(f.state.store().expired_keys() == 2);
}

TEST_CASE("GET family: GETSET GETDEL GETEX SETNX SETEX PSETEX MGET MSET MSETNX", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"GETSET", "k", "1"}) == "$-1\r\n");
  CHECK(f.cmd({"GETSET", "k", "2"}) == "$1\r\n1\r\n");
  CHECK(f.cmd({"GETDEL", "k"}) == "$1\r\n2\r\n");
  CHECK(f.cmd({"EXISTS", "k"}) == ":0\r\n");
  CHECK(f.cmd({"SETNX", "k", "a"}) == ":1\r\n");
  CHECK(f.cmd({"SETNX", "k", "b"}) == ":0\r\n");
  CHECK(f.cmd({"GETEX", "k", "EX", "10"}) == "$1\r\na\r\n");
  CHECK(f.cmd({"TTL", "k"}) == ":10\r\n");
  CHECK(f.cmd({"GETEX", "k", "PERSIST"}) == "$1\r\na\r\n");
  CHECK(f.cmd({"TTL", "k"}) == ":-1\r\n");
  CHECK(f.cmd({"GETEX", "k", "PERSIST", "EX", "1"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"SETEX", "s", "0", "v"}) == "-ERR invalid expire time in 'setex' command\r\n");
  CHECK(f.cmd({"PSETEX", "s", "1500", "v"}) == "+OK\r\n");
  CHECK(f.cmd({"TTL", "s"}) == ":2\r\n");
  CHECK(f.cmd({"MSET", "a", "1", "b"}) == "-ERR wrong number of arguments for 'mset' command\r\n");
  CHECK(f.cmd({"MSET", "a", "1", "b", "2"}) == "+OK\r\n");
  CHECK(f.cmd({"MGET", "a", "nope", "b"}) == "*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n");
  CHECK(f.cmd({"MSETNX", "a", "9", "c", "3"}) == ":0\r\n");
  CHECK(f.cmd({"MSETNX", "c", "3", "d", "4"}) == ":1\r\n");
}

TEST_CASE("the seed's MOD updates existing keys only and EXIST answers 0 or 1", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"MOD", "k", "v"}) == "$-1\r\n");
  CHECK(f.cmd({"EXIST", "k"}) == ":0\r\n");
  CHECK(f.cmd({"SET", "k", "v"}) == "+OK\r\n");
  CHECK(f.cmd({"MOD", "k", "w"}) == "+OK\r\n");
  CHECK(f.cmd({"GET", "k"}) == "$1\r\nw\r\n");
  CHECK(f.cmd({"EXIST", "k"}) == ":1\r\n");
  CHECK(f.cmd({"EXIST", "k", "k"}) == "-ERR wrong number of arguments for 'exist' command\r\n");
}

TEST_CASE("counters: INCR family, overflow and INCRBYFLOAT formatting", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"INCR", "n"}) == ":1\r\n");
  CHECK(f.cmd({"INCRBY", "n", "10"}) == ":11\r\n");
  CHECK(f.cmd({"DECRBY", "n", "20"}) == ":-9\r\n");
  CHECK(f.cmd({"DECR", "n"}) == ":-10\r\n");
  CHECK(f.cmd({"INCRBY", "n", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SET", "n", "9223372036854775807"}) == "+OK\r\n");
  CHECK(f.cmd({"INCR", "n"}) == "-ERR increment or decrement would overflow\r\n");
  CHECK(f.cmd({"DECRBY", "n", "-9223372036854775808"}) == "-ERR decrement would overflow\r\n");
  CHECK(f.cmd({"SET", "s", "01"}) == "+OK\r\n");
  CHECK(f.cmd({"INCR", "s"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SET", "f", "1.5"}) == "+OK\r\n");
  CHECK(f.cmd({"INCRBYFLOAT", "f", "0.1"}) == "$3\r\n1.6\r\n");
  CHECK(f.cmd({"INCRBYFLOAT", "f", "abc"}) == "-ERR value is not a valid float\r\n");
  CHECK(f.cmd({"INCRBYFLOAT", "g", "5.0e3"}) == "$4\r\n5000\r\n");
  CHECK(f.cmd({"INCRBYFLOAT", "g", "-5000"}) == "$1\r\n0\r\n");
}

TEST_CASE("APPEND STRLEN GETRANGE SETRANGE follow Redis's edge cases", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"APPEND", "k", "Hello"}) == ":5\r\n");
  CHECK(f.cmd({"APPEND", "k", " World"}) == ":11\r\n");
  CHECK(f.cmd({"STRLEN", "k"}) == ":11\r\n");
  CHECK(f.cmd({"STRLEN", "none"}) == ":0\r\n");
  CHECK(f.cmd({"GETRANGE", "k", "0", "4"}) == "$5\r\nHello\r\n");
  CHECK(f.cmd({"GETRANGE", "k", "-5", "-1"}) == "$5\r\nWorld\r\n");
  CHECK(f.cmd({"GETRANGE", "k", "-1", "-5"}) == "$0\r\n\r\n");
  CHECK(f.cmd({"GETRANGE", "k", "5", "100"}) == "$6\r\n World\r\n");
  CHECK(f.cmd({"GETRANGE", "none", "0", "1"}) == "$0\r\n\r\n");
  CHECK(f.cmd({"GETRANGE", "k", "a", "b"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SETRANGE", "k", "-1", "x"}) == "-ERR offset is out of range\r\n");
  CHECK(f.cmd({"SETRANGE", "k", "536870912", "x"}) ==
        "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n");
  CHECK(f.cmd({"SETRANGE", "z", "3", "ab"}) == ":5\r\n");
  CHECK(f.cmd({"GET", "z"}) == std::string("$5\r\n\0\0\0ab\r\n", 11));
  CHECK(f.cmd({"SETRANGE", "none", "3", ""}) == ":0\r\n");
}

TEST_CASE("AUTH, HELLO and NOAUTH with requirepass", "[kv][session]") {
  ServerConfig config;
  config.requirepass = "pw";
  ServerState state(config);
  Session s(state);
  CHECK(run(s, {"GET", "k"}) == "-NOAUTH Authentication required.\r\n");
  CHECK(run(s, {"foo"}) == "-ERR unknown command 'foo', with args beginning with: \r\n");
  CHECK(run(s, {"HELLO", "2"}).rfind("-NOAUTH HELLO must be called with the client already authenticated", 0) == 0);
  CHECK(run(s, {"AUTH", "x"}) == "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  CHECK(run(s, {"AUTH", "default", "pw", "x"}) == "-ERR syntax error\r\n");
  CHECK(talk(s, "*11\r\n") == "-ERR Protocol error: unauthenticated multibulk length\r\n");
  CHECK(s.closing());
  Session t(state);
  CHECK(run(t, {"HELLO", "2", "AUTH", "default", "pw", "SETNAME", "x", "foo"}) ==
        "-ERR Syntax error in HELLO option 'foo'\r\n");
  CHECK(run(t, {"HELLO", "2", "AUTH", "default", "pw"}).rfind("*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n", 0) == 0);
  CHECK(run(t, {"GET", "k"}) == "$-1\r\n");
  Session u(state);
  CHECK(run(u, {"AUTH", "pw"}) == "+OK\r\n");
  CHECK(run(u, {"PING"}) == "+PONG\r\n");
}

TEST_CASE("HELLO 3 switches the connection to RESP3 and its own reply is already a map", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"GET", "nokey"}) == "$-1\r\n");
  const std::string hello = f.cmd({"HELLO", "3"});
  CHECK(hello.rfind("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n", 0) == 0);
  CHECK(hello.find("$5\r\nproto\r\n:3\r\n") != std::string::npos);
  CHECK(hello.find("$7\r\nmodules\r\n*0\r\n") != std::string::npos);
  CHECK(f.cmd({"GET", "nokey"}) == "_\r\n");
  CHECK(f.cmd({"HELLO"}).find("$5\r\nproto\r\n:3\r\n") != std::string::npos);  // no version: unchanged
  CHECK(f.cmd({"HELLO", "4"}) == "-NOPROTO unsupported protocol version\r\n");
  CHECK(f.cmd({"HELLO", "1"}) == "-NOPROTO unsupported protocol version\r\n");
  CHECK(f.cmd({"HELLO", "2", "SETNAME", "bad name"}).rfind("-ERR", 0) == 0);
  CHECK(f.cmd({"GET", "nokey"}) == "_\r\n");  // a refused HELLO changes nothing
  CHECK(f.cmd({"RESET"}) == "+RESET\r\n");
  CHECK(f.cmd({"GET", "nokey"}) == "$-1\r\n");  // RESET goes back to RESP2
  CHECK(f.cmd({"HELLO", "2"}).rfind("*14\r\n", 0) == 0);
  CHECK(f.cmd({"HELLO", "abc"}) == "-ERR Protocol version is not an integer or out of range\r\n");
  CHECK(f.cmd({"AUTH", "foo"}) ==
        "-ERR AUTH <password> called without any password configured for the default user. Are you sure your "
        "configuration is correct?\r\n");
}

TEST_CASE("SELECT isolates databases; FLUSHDB clears one, FLUSHALL all", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"SET", "k", "0"}) == "+OK\r\n");
  CHECK(f.cmd({"SELECT", "16"}) == "-ERR DB index is out of range\r\n");
  CHECK(f.cmd({"SELECT", "abc"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.cmd({"SELECT", "1"}) == "+OK\r\n");
  CHECK(f.cmd({"GET", "k"}) == "$-1\r\n");
  CHECK(f.cmd({"SET", "k", "1"}) == "+OK\r\n");
  CHECK(f.cmd({"FLUSHDB", "foo"}) == "-ERR syntax error\r\n");
  CHECK(f.cmd({"FLUSHDB"}) == "+OK\r\n");
  CHECK(f.cmd({"SELECT", "0"}) == "+OK\r\n");
  CHECK(f.cmd({"GET", "k"}) == "$1\r\n0\r\n");
  CHECK(f.cmd({"FLUSHALL", "SYNC"}) == "+OK\r\n");
  CHECK(f.cmd({"DBSIZE"}) == ":0\r\n");
}

TEST_CASE("INFO reports the sections redis tools read", "[kv][session]") {
  Fixture f;
  f.cmd({"SET", "k", "v", "EX", "100"});
  std::string info = f.cmd({"INFO"});
  for (auto s : {"# Server", "# Clients", "# Memory", "# Stats", "# Keyspace", "used_memory:", "connected_clients:1",
                 "db0:keys=1,expires=1"}) {
    CHECK(info.find(s) != std::string::npos);
  }
  CHECK(f.cmd({"INFO", "foo"}) == "$0\r\n\r\n");
  CHECK(f.cmd({"INFO", "memory"}).find("# Server") == std::string::npos);
}

TEST_CASE("COMMAND COUNT, INFO and DOCS describe the table", "[kv][session]") {
  Fixture f;
  CHECK(f.cmd({"COMMAND", "INFO", "get"}).rfind("*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n", 0) == 0);
  CHECK(f.cmd({"COMMAND", "INFO", "nosuch"}) == "*1\r\n$-1\r\n");
  CHECK(f.cmd({"COMMAND", "COUNT", "x"}) == "-ERR wrong number of arguments for 'command|count' command\r\n");
  CHECK(f.cmd({"COMMAND", "DOCS", "ping"}).rfind("*2\r\n$4\r\nping\r\n*8\r\n$7\r\nsummary\r\n", 0) == 0);
}

TEST_CASE("a client over the output limit stops running commands until it drains", "[kv][session]") {
  ServerConfig config;
  config.client_output_limit = 1000;
  ServerState state(config);
  Session s(state);
  std::string value(600, 'x');
  s.feed(kvtest::resp({"SET", "k", value}));
  s.consume_output(s.output().size());
  s.feed(kvtest::resp({"GET", "k"}) + kvtest::resp({"GET", "k"}) + kvtest::resp({"GET", "k"}));
  CHECK(s.output().size() == 2 * (value.size() + 8));  // two replies pass the limit
  CHECK_FALSE(s.wants_input());
  s.consume_output(s.output().size());
  s.process();
  CHECK(s.output().size() == value.size() + 8);
  CHECK(s.wants_input());
}

TEST_CASE("commands pipelined behind AUTH or CONFIG SET parse under the limits those set", "[kv][session]") {
  // The session parses a window of commands ahead of running them; a command
  // that changes how the next ones parse ends the window.
  ServerConfig config;
  config.requirepass = "pw";
  ServerState state(config);
  Session s(state);
  const std::vector<std::string> eleven = {"RPUSH", "l", "a", "b", "c", "d", "e", "f", "g", "h", "i"};
  s.feed(kvtest::resp({"AUTH", "pw"}) + kvtest::resp(eleven));  // 11 arguments: refused before AUTH
  CHECK(s.output() == "+OK\r\n:9\r\n");
  CHECK_FALSE(s.closing());
  s.consume_output(s.output().size());
  const std::string value(1024 * 1024 + 1, 'v');  // one byte over the smallest proto-max-bulk-len
  s.feed(kvtest::resp({"CONFIG", "SET", "proto-max-bulk-len", "1mb"}) + kvtest::resp({"SET", "k", value}));
  CHECK(s.output() == "+OK\r\n-ERR Protocol error: invalid bulk length\r\n");
  CHECK(s.closing());
}

TEST_CASE("a pipeline stopped by the output limit resumes at the next command, an unfinished one behind it", "[kv][session]") {
  ServerConfig config;
  config.client_output_limit = 1000;
  ServerState state(config);
  Session s(state);
  const std::string value(600, 'x');
  s.feed(kvtest::resp({"SET", "k", value}));
  s.consume_output(s.output().size());
  const std::string get = kvtest::resp({"GET", "k"});
  const std::string echo = kvtest::resp({"ECHO", "tail"});
  s.feed(get + get + get + kvtest::resp({"INCR", "n"}) + echo.substr(0, 10));
  CHECK(s.output().size() == 2 * (value.size() + 8));  // stopped after the second GET
  s.consume_output(s.output().size());
  s.process();
  CHECK(s.output() == "$600\r\n" + value + "\r\n:1\r\n");  // the third GET and INCR, each once
  s.consume_output(s.output().size());
  s.feed(echo.substr(10));
  CHECK(s.output() == "$4\r\ntail\r\n");
  CHECK(s.wants_input());
}

TEST_CASE("feed runs whole commands from the bytes given and keeps only an unfinished tail", "[kv][session]") {
  ServerState state;
  Session s(state);
  const std::string ping = kvtest::resp({"PING"});
  s.feed(ping + ping + ping.substr(0, 9));  // two whole commands and the start of a third
  CHECK(s.output() == "+PONG\r\n+PONG\r\n");
  CHECK(s.client().query_buffer == 9);
  s.consume_output(s.output().size());
  s.feed(ping.substr(9) + ping);  // the tail, then one more
  CHECK(s.output() == "+PONG\r\n+PONG\r\n");
  CHECK(s.client().query_buffer == 0);
  for (char c : kvtest::resp({"ECHO", "one byte at a time"})) s.feed(std::string_view(&c, 1));
  CHECK(s.output() == "+PONG\r\n+PONG\r\n$18\r\none byte at a time\r\n");
}

TEST_CASE("a long pipeline answers exactly as the same commands sent one by one", "[kv][session]") {
  ServerState batch_state;
  ServerState single_state;
  Session batch(batch_state);
  Session single(single_state);
  std::string pipeline;
  std::string expected;
  for (int i = 0; i < 100; ++i) {  // keys repeat and miss; SELECT switches databases mid-batch
    const std::string key = "k" + std::to_string(i % 7);
    std::string cmd = i % 3 == 0   ? kvtest::resp({"SET", key, std::to_string(i)})
                      : i % 3 == 1 ? kvtest::resp({"GET", key})
                      : i % 10 == 2 ? kvtest::resp({"SELECT", std::to_string(i % 2)})
                                    : kvtest::resp({"INCR", "n" + key});
    pipeline += cmd;
    single.feed(cmd);
    expected += single.output();
    single.consume_output(single.output().size());
  }
  batch.feed(pipeline);
  CHECK(batch.output() == expected);
}

TEST_CASE("SHUTDOWN asks the server to stop and closes without a reply", "[kv][session]") {
  Fixture f;
  bool hook = false;
  f.state.set_shutdown_hook([&] { hook = true; });
  CHECK(f.cmd({"SHUTDOWN"}).empty());
  CHECK(f.session.closing());
  CHECK(f.state.shutdown_requested());
  CHECK(hook);
}

TEST_CASE("command names match in any letter case and only as whole names", "[kv][session]") {
  using duet::kv::find_command;
  auto named = [](std::string_view lower) -> const duet::kv::Command* {  // the table's entry, by a linear search
    for (const duet::kv::Command* cmd : duet::kv::all_commands()) {
      if (cmd->name == lower) return cmd;
    }
    return nullptr;
  };
  for (const duet::kv::Command* cmd : duet::kv::all_commands()) {
    std::string name(cmd->name);
    INFO("command " << name);
    std::string upper;
    std::string mixed;
    for (std::size_t i = 0; i < name.size(); ++i) {
      char c = name[i];
      char up = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
      upper.push_back(up);
      mixed.push_back(i % 2 == 0 ? up : c);
    }
    CHECK(find_command(name) == cmd);
    CHECK(find_command(upper) == cmd);
    CHECK(find_command(mixed) == cmd);
    CHECK(find_command(name + "x") == named(name + "x"));
    CHECK(find_command(name.substr(0, name.size() - 1)) == named(name.substr(0, name.size() - 1)));
    for (std::size_t i = 0; i < name.size(); ++i) {  // the case bit flipped on a non-letter is another byte
      std::string other = name;
      other[i] = static_cast<char>(other[i] ^ 0x20);
      if (name[i] < 'a' || name[i] > 'z') CHECK(find_command(other) == nullptr);
      other[i] = static_cast<char>(name[i] ^ 0x40);
      CHECK(find_command(other) == nullptr);
    }
  }
  CHECK(find_command("") == nullptr);
  CHECK(find_command(std::string_view("get\0", 4)) == nullptr);
  CHECK(find_command("CLIENT") != nullptr);
  CHECK(find_command("bgrewriteAOF") != nullptr);
}

TEST_CASE("bulk and integer replies are framed exactly at every size", "[kv][session]") {
  Fixture f;
  for (std::size_t n : {0, 1, 9, 10, 11, 63, 64, 65, 99, 100, 1000}) {
    std::string value(n, 'v');
    if (n > 0) value.back() = '\n';
    REQUIRE(f.cmd({"SET", "k", value}) == "+OK\r\n");
    CHECK(f.cmd({"GET", "k"}) == "$" + std::to_string(n) + "\r\n" + value + "\r\n");
  }
  CHECK(f.cmd({"SET", "n", "0"}) == "+OK\r\n");
  CHECK(f.cmd({"INCRBY", "n", "9"}) == ":9\r\n");
  CHECK(f.cmd({"INCRBY", "n", "1"}) == ":10\r\n");
  CHECK(f.cmd({"INCRBY", "n", "-11"}) == ":-1\r\n");
  CHECK(f.cmd({"INCRBY", "n", "-9223372036854775807"}) == ":-9223372036854775808\r\n");
  CHECK(f.cmd({"MGET", "n", "nokey"}) == "*2\r\n$20\r\n-9223372036854775808\r\n$-1\r\n");
}
