// A Python client script run beside an example server (the WebSocket
// examples' tests): its output read line by line, then its exit status.
//
//   duet::test::PythonClient client(script, server.port(), "echo");
//   REQUIRE(client.line() == "ready\n");
//   std::string out; CHECK(client.finish(out) == 0);
#pragma once

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace duet::test {

class PythonClient {
 public:
  // Runs `/usr/bin/python3 script port mode` (Debian's python, with its modules).
  PythonClient(const std::string& script, int port, const std::string& mode) {
    const std::string cmd = "/usr/bin/python3 " + script + " " + std::to_string(port) + " " + mode;
    pipe_ = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe_ != nullptr);
  }
  PythonClient(const PythonClient&) = delete;
  PythonClient& operator=(const PythonClient&) = delete;
  ~PythonClient() {
    if (pipe_ != nullptr) ::pclose(pipe_);
  }
  // The next line of its output ("" at its end).
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

}  // namespace duet::test
