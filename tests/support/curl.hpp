// curl_https_twice(port, ca_file): what curl (the client users run) saw of an
// HTTPS server on 127.0.0.1:port, for the HTTP servers' TLS tests of both
// voices (tests/task/http_server_test.cpp, tests/stackful/
// http_server_fiber_test.cpp), so each CHECKs one string.
//
// Contract
// - One curl run GETs https://localhost:port/ twice (the name the test
//   certificates carry, resolved to 127.0.0.1), trusting only ca_file and
//   offering ALPN h2 and http/1.1 (curl's default): the second request reuses
//   the first's connection when the server kept it.
// - The result: per request "<body> <status> <connections opened>\n", then
//   "ALPN <the protocol the server accepted, or none>", curl's own error
//   lines if any, and " rc=<curl's exit status>\n".
// - Blocking, at most 10 s (curl's --max-time); no Catch2 assertion inside
//   (so a ClientThread may call it); throws std::runtime_error if curl cannot
//   be started.
//
//   duet::test::ClientThread<std::string> client([port, ca] { return duet::test::curl_https_twice(port, ca); });
//   CHECK(client.result() == "hello 200 1\nhello 200 0\nALPN http/1.1 rc=0\n");
#pragma once

#include <sys/wait.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"

namespace duet::test {

namespace detail {

// What `command` printed on stdout, and its exit status in `status`.
inline std::string curl_output_of(const std::string& command, int& status) {
  std::FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen: " + command);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int wait_status = ::pclose(p);
  status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  return out;
}

// From curl -v's trace: the protocol in "* ALPN: server accepted http/1.1"
// (curl 7.88; "ALPN, server accepted to use ..." before 7.86), "none" without one.
inline std::string alpn_accepted(std::ifstream& trace, std::string& errors) {
  std::string alpn = "none";
  for (std::string line; std::getline(trace, line);) {
    if (line.rfind("curl: ", 0) == 0) errors += line + "\n";
    if (line.find("ALPN") == std::string::npos || line.find("server accepted") == std::string::npos) continue;
    alpn = line.substr(line.find_last_of(' ') + 1);
  }
  return alpn;
}

}  // namespace detail

inline std::string curl_https_twice(std::uint16_t port, const std::string& ca_file) {
  const TempDir dir("duet-curl");
  const std::string p = std::to_string(port);
  const std::string url = "https://localhost:" + p + "/";
  const std::string command = "curl -sS -v --max-time 10 --cacert " + ca_file + " --resolve localhost:" + p +
                              ":127.0.0.1 -w ' %{http_code} %{num_connects}\\n' " + url + " " + url +
                              " 2>" + dir.file("trace");  // -v's trace and curl's errors
  int status = 0;
  std::string out = detail::curl_output_of(command, status);
  std::ifstream trace(dir.file("trace"));
  std::string errors;
  out += "ALPN " + detail::alpn_accepted(trace, errors);
  return out + (errors.empty() ? "" : "\n" + errors) + " rc=" + std::to_string(status) + "\n";
}

}  // namespace duet::test
