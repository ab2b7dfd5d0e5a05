// End-to-end tests of the HTTP examples (examples/http_hello_*.cpp): both
// executables on both backends, on one shard and on two, with the clients
// users run: curl (keep-alive across two URLs, HTTP/1.0, a bad request) and
// Python's http.client (tests/examples/http_client_check.py). Then a clean
// stop on SIGTERM, and bad flags refused with status 2.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "example_server.hpp"

namespace {

// What `command` printed on stdout (its status must be 0).
std::string output_of(const std::string& command) {
  std::FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  INFO(command << " printed: " << out);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return out;
}

std::string exe_of(const char* voice) {
  const char* path = std::getenv(std::string(voice) == "stackless" ? "DUET_HTTP_HELLO_STACKLESS"
                                                                     : "DUET_HTTP_HELLO_STACKFUL");
  REQUIRE(path != nullptr);
  return path;
}

}  // namespace

TEST_CASE("http_hello answers curl and Python's http.client, keeps connections alive and stops cleanly") {
  const char* voice = GENERATE("stackless", "stackful");
  const char* backend = GENERATE("io_uring", "epoll");
  const char* threads = GENERATE("1", "2");
  INFO(voice << " on " << backend << ", " << threads << " threads");
  duet::test::ExampleServer server({exe_of(voice), "--port", "0", "--backend", backend, "--threads", threads});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  // Two URLs in one curl: the second reuses the connection (num_connects 0).
  CHECK(output_of("curl -sS --max-time 10 -w ' %{http_code} %{num_connects}\\n' " + url + " " + url) ==
        "hello 200 1\nhello 200 0\n");
  CHECK(output_of("curl -sS --max-time 10 --http1.0 -o /dev/null -w '%{http_code}' " + url) == "200");
  CHECK(output_of("curl -sS --max-time 10 -o /dev/null -w '%{http_code}' " + url + "nothing") == "404");
  // A space in the target, and both Content-Length and Transfer-Encoding (smuggling): 400.
  CHECK(output_of("curl -sS --max-time 10 -o /dev/null -w '%{http_code}' --request-target '/a b' " + url) == "400");
  CHECK(output_of("curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H 'Content-Length: 1' "
                  "-H 'Transfer-Encoding: chunked' -d x " + url) == "400");
  CHECK(output_of("/usr/bin/python3 " DUET_HTTP_CLIENT_CHECK " " + std::to_string(server.port())) == "ok\n");
  CHECK(server.stop() == 0);
}

TEST_CASE("http_hello refuses a bad flag with its usage and status 2") {
  const char* voice = GENERATE("stackless", "stackful");
  for (const char* args : {"--port 70000", "--backend kqueue", "--threads 0", "--verbose 1", "--port"}) {
    INFO(voice << " " << args);
    const int status = std::system((exe_of(voice) + " " + args + " 2>/dev/null").c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
  }
}
