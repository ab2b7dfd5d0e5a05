// End-to-end tests of the WebSocket echo examples (examples/ws_echo_*.cpp)
// with the client Node.js users run, npm's ws (tests/examples/ws_clients/:
// package-lock.json pins it, ./dev.sh installs it with npm ci): both
// executables on both backends. Text and binary (empty, small, 100 KiB),
// fragments, permessage-deflate offered (and the echo compressed on the wire)
// or not, a ping, the client's close (1000 echoed), the server's close for a
// broken rule (1007, 1009) and when it is stopped (1001).
// Skipped (exit 77) only without node or without node_modules/ws.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client_process.hpp"
#include "example_server.hpp"

using duet::test::required_env;

namespace {

// The script; or exit with meson's "skipped" (77) when node or its ws module is
// missing, before any server is started (exit() would leave it running).
std::string npm_client_script() {
  const std::string script = required_env("DUET_WS_NPM_CLIENT");
  const std::string module = script.substr(0, script.rfind('/')) + "/node_modules/ws/package.json";
  if (std::system("command -v node >/dev/null 2>&1") != 0 || ::access(module.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "skipped: node or %s missing (./dev.sh deps installs them)\n", module.c_str());
    std::exit(77);
  }
  return script;
}

// The npm ws client for one case of ws_npm_client.mjs, running.
class NpmClient : public duet::test::ClientProcess {
 public:
  NpmClient(const std::string& script, int port, const std::string& which)
      : ClientProcess("node " + script + " " + std::to_string(port) + " " + which) {}
};

}  // namespace

TEST_CASE("npm ws gets every message echoed, fragmented, compressed or not, a pong, and the close 1000 echoed") {
  const std::string script = npm_client_script();  // before the server: a skip exits at once
  const std::string exe = required_env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  NpmClient client(script, server.port(), "echo");
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  CHECK(server.stop() == 0);
}

TEST_CASE("a ws_echo server closes npm ws's connection with 1007 for text not UTF-8 and 1009 past 1 MiB") {
  const std::string script = npm_client_script();  // before the server: a skip exits at once
  const std::string exe = required_env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  NpmClient client(script, server.port(), "broken");
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  CHECK(server.stop() == 0);  // and it stops cleanly after failing those connections
}

TEST_CASE("a ws_echo server being stopped closes npm ws's connection with 1001, then exits cleanly") {
  const std::string script = npm_client_script();  // before the server: a skip exits at once
  const std::string exe = required_env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  NpmClient client(script, server.port(), "server-close");
  REQUIRE(client.line() == "ready\n");  // connected, one echo done
  CHECK(server.stop() == 0);            // SIGTERM: the close (1001), then the exit
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  const auto rest = server.rest();
  REQUIRE(!rest.empty());
  CHECK(rest.back() == "ws_echo stopped\n");
}
