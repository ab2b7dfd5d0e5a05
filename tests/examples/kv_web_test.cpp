// End-to-end test of the web examples (examples/kv_web_*.cpp): both voices on
// both backends in front of duet-kv-stackless, driven by curl: PUT, GET,
// DELETE, a missing key, a percent-encoded key, a bad escape, and a KV server
// that is not there (502).
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "example_server.hpp"

namespace {

std::string output_of(const std::string& command) {
  std::FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  return out;
}

// A port nothing listens on now (bound, then released).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string curl(const std::string& args) { return output_of("curl -sS --max-time 10 -w ' %{http_code}' " + args); }

}  // namespace

TEST_CASE("kv_web stores, reads and deletes keys in the KV server over HTTP") {
  const char* voice = GENERATE("STACKLESS", "STACKFUL");
  const char* backend = GENERATE("io_uring", "epoll");
  INFO(voice << " on " << backend);
  const char* web = std::getenv((std::string("DUET_KV_WEB_") + voice).c_str());
  const char* kv = std::getenv("DUET_KV_STACKLESS");
  REQUIRE(web != nullptr);
  REQUIRE(kv != nullptr);
  const std::string kv_port = std::to_string(free_port());
  const std::string start_kv = std::string(kv) + " --port " + kv_port + " >/dev/null 2>&1 & echo $!";
  const int kv_pid = std::stoi(output_of(start_kv));
  for (int i = 0; i < 100 && output_of("redis-cli -p " + kv_port + " PING 2>/dev/null") != "PONG\n"; ++i) ::usleep(50'000);
  duet::test::ExampleServer server({web, "--port", "0", "--backend", backend, "--kv-port", kv_port});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/kv/";
  CHECK(curl("-o /dev/null -X PUT --data-binary 'red and round' " + url + "apple%20pie") == " 204");
  CHECK(curl(url + "apple%20pie") == "red and round 200");
  CHECK(output_of("redis-cli -p " + kv_port + " GET 'apple pie'") == "red and round\n");
  CHECK(curl("-o /dev/null -X DELETE " + url + "apple%20pie") == " 204");
  CHECK(curl("-o /dev/null " + url + "apple%20pie") == " 404");
  CHECK(curl("-o /dev/null -X DELETE " + url + "apple%20pie") == " 404");
  CHECK(curl("-o /dev/null " + url + "bad%zz") == " 400");
  ::kill(kv_pid, SIGTERM);
  // (Started by popen's shell, so not our child to wait for: wait until it stops answering.)
  for (int i = 0; i < 100 && output_of("redis-cli -p " + kv_port + " PING 2>/dev/null") == "PONG\n"; ++i) ::usleep(50'000);
  CHECK(curl("-o /dev/null " + url + "apple") == " 502");
  CHECK(server.stop() == 0);
}
