// End-to-end tests of the WebSocket echo examples (examples/ws_echo_*.cpp):
// both executables on both backends, spoken to by another implementation,
// Debian's python3-websockets (tests/examples/ws_echo_client.py): text,
// binary, fragments, a ping, with and without permessage-deflate, a close
// by the client, and the server's close (1001) when it is stopped.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "example_server.hpp"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE(v != nullptr);
  return v;
}

// Runs the python client; its output, and its exit status in `status`.
class PythonClient {
 public:
  PythonClient(int port, const std::string& which) {
    const std::string cmd = "/usr/bin/python3 " + env("DUET_WS_CLIENT") + " " + std::to_string(port) + " " + which;
    pipe_ = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe_ != nullptr);
  }
  PythonClient(const PythonClient&) = delete;
  PythonClient& operator=(const PythonClient&) = delete;
  ~PythonClient() {
    if (pipe_ != nullptr) ::pclose(pipe_);
  }
  std::string line() {
    char buf[512] = {};
    return std::fgets(buf, sizeof buf, pipe_) != nullptr ? std::string(buf) : std::string();
  }
  // The rest of its output and its exit status (-1 if it did not exit normally).
  int finish(std::string& out) {
    for (std::string l = line(); !l.empty(); l = line()) out += l;
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  FILE* pipe_ = nullptr;
};

}  // namespace

TEST_CASE("python3-websockets gets every message echoed, fragmented, compressed or not, and closes with 1000") {
  const std::string exe = env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  PythonClient client(server.port(), "echo");
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  CHECK(server.stop() == 0);
}

TEST_CASE("a ws_echo server being stopped closes its connections with 1001, then exits cleanly") {
  const std::string exe = env(GENERATE("DUET_WS_ECHO_STACKLESS", "DUET_WS_ECHO_STACKFUL"));
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO(exe << " on " << backend);
  duet::test::ExampleServer server({exe, "--port", "0", "--backend", backend});
  PythonClient client(server.port(), "server-close");
  REQUIRE(client.line() == "ready\n");  // connected, one echo done
  CHECK(server.stop() == 0);            // SIGTERM: the close (1001), then the exit
  std::string out;
  CHECK(client.finish(out) == 0);
  CHECK(out == "ok\n");
  const auto rest = server.rest();
  REQUIRE(!rest.empty());
  CHECK(rest.back() == "ws_echo stopped\n");
}
