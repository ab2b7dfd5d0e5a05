// End-to-end tests of the WebSocket chat examples (examples/ws_chat_*.cpp):
// both executables on both backends, their members played by
// python3-websockets (tests/examples/ws_chat_client.py): lines to every other
// member in order, 1003 for binary, 1009 past max_line, the page at GET /,
// and the server's close (1001) when it is stopped.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "example_server.hpp"
#include "python_client.hpp"

using duet::test::required_env;

TEST_CASE("ws_chat passes each line to every other member in order and refuses binary and oversize messages") {
  const std::string exe = required_env(GENERATE("DUET_WS_CHAT_STACKLESS", "DUET_WS_CHAT_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  duet::test::PythonClient client(required_env("DUET_WS_CHAT_CLIENT"), server.port(), "room");
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  CHECK(server.stop() == 0);
}

TEST_CASE("a ws_chat server being stopped closes its members with 1001, then exits cleanly") {
  const std::string exe = required_env(GENERATE("DUET_WS_CHAT_STACKLESS", "DUET_WS_CHAT_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  duet::test::PythonClient client(required_env("DUET_WS_CHAT_CLIENT"), server.port(), "server-close");
  REQUIRE(client.line() == "ready\n");
  CHECK(server.stop() == 0);  // SIGTERM: the close (1001), then the exit
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  const auto rest = server.rest();
  REQUIRE(!rest.empty());
  CHECK(rest.back() == "ws_chat stopped\n");
}
