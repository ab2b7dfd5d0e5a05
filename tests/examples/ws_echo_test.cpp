// End-to-end tests of the WebSocket echo examples (examples/ws_echo_*.cpp):
// both executables on both backends, spoken to by another implementation,
// Debian's python3-websockets (tests/examples/ws_echo_client.py): text,
// binary, fragments, a ping, with and without permessage-deflate, a close
// by the client, and the server's close (1001) when it is stopped.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "example_server.hpp"
#include "python_client.hpp"

using duet::test::PythonClient;
using duet::test::required_env;

TEST_CASE("python3-websockets gets every message echoed, fragmented, compressed or not, and closes with 1000") {
  const std::string exe = required_env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  PythonClient client(required_env("DUET_WS_CLIENT"), server.port(), "echo");
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  CHECK(server.stop() == 0);
}

TEST_CASE("a ws_echo server being stopped closes its connections with 1001, then exits cleanly") {
  const std::string exe = required_env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  PythonClient client(required_env("DUET_WS_CLIENT"), server.port(), "server-close");
  REQUIRE(client.line() == "ready\n");  // connected, one echo done
  CHECK(server.stop() == 0);            // SIGTERM: the close (1001), then the exit
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  const auto rest = server.rest();
  REQUIRE(!rest.empty());
  CHECK(rest.back() == "ws_echo stopped\n");
}
