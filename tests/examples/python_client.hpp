// A Python client script run beside an example server (the WebSocket
// examples' tests): its output read line by line, then its exit status
// (a ClientProcess running Debian's python, with its modules).
//
//   duet::test::PythonClient client(script, server.port(), "echo");
//   REQUIRE(client.line() == "ready\n");
//   std::string out; CHECK(client.finish(out) == 0);
#pragma once

#include <string>

#include "client_process.hpp"

namespace duet::test {

class PythonClient : public ClientProcess {
 public:
  // Runs `/usr/bin/python3 script port mode`.
  PythonClient(const std::string& script, int port, const std::string& mode)
      : ClientProcess("/usr/bin/python3 " + script + " " + std::to_string(port) + " " + mode) {}
};

}  // namespace duet::test
