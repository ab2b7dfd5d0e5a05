// A client program run by an end-to-end test beside an ExampleServer (a
// python3-websockets script through PythonClient, python_client.hpp; the npm
// ws script): started through the shell with its stdout on a pipe; line()
// reads one line of what it prints (empty at its end), finish() the rest and
// its exit status (-1 if it did not exit normally). The client bounds its
// own steps; the destructor waits for it.
//
//   duet::test::ClientProcess client("node client.mjs " + std::to_string(server.port()) + " echo");
//   std::string out;
//   CHECK(client.finish(out) == 0);
//   CHECK(out == "ok\n");
#pragma once

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace duet::test {

class ClientProcess {
 public:
  explicit ClientProcess(const std::string& command) : pipe_(::popen(command.c_str(), "r")) {
    REQUIRE(pipe_ != nullptr);
  }
  ClientProcess(const ClientProcess&) = delete;
  ClientProcess& operator=(const ClientProcess&) = delete;
  ClientProcess(ClientProcess&&) = delete;
  ClientProcess& operator=(ClientProcess&&) = delete;
  ~ClientProcess() {
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
