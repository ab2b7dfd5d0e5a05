// The KV server's --unixsocket and --unixsocketperm end to end: both
// executables on both backends and with --threads 1 and 2 (the socket is
// served by shard 0, beside the TCP port spread over the shards), spoken to with redis-cli -s and
// redis-benchmark -s beside the TCP port, and what a bad path or mode does,
// checked against redis-server's behaviour (see docs/KV.md).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>

#include "e2e_support.hpp"
#include "e2e_target.hpp"
#include "kv_test_util.hpp"
#include "support/temp_dir.hpp"

using kve2e::Client;
using kve2e::ServerProcess;
using kve2e::Target;
using kve2e::pick_exe;
using kve2e::pick_target;
using kvtest::resp;

namespace {

std::pair<int, std::string> run(const std::string& command) { return kve2e::run_command(command); }

bool have_redis_tools() {
  return std::system("command -v redis-cli >/dev/null && command -v redis-benchmark >/dev/null") == 0;
}

mode_t file_mode(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) ? st.st_mode & 0777 : 0;
}

}  // namespace

TEST_CASE("redis-cli -s and redis-benchmark -s reach the server on its Unix socket while TCP keeps working",
          "[kv][e2e]") {
  const Target t = pick_target();
  INFO(t.describe());
  if (!have_redis_tools()) {
    WARN("redis-cli / redis-benchmark not found (apt-get install redis-tools): skipped");
    return;
  }
  duet::test::TempDir dir("duet-kv-unix");
  const std::string path = dir.file("kv.sock");
  {
    ServerProcess server(t.exe, t.backend, t.args({"--unixsocket", path, "--unixsocketperm", "700"}));
    CHECK(file_mode(path) == 0700);
    const std::string cli = "redis-cli --no-raw -s " + path + " ";
    CHECK(run(cli + "SET where unix").second == "OK\n");
    Client tcp(server.port());  // the TCP port serves beside the socket, on the same keyspace
    CHECK(tcp.call(resp({"GET", "where"}), 10) == "$4\r\nunix\r\n");
    CHECK(run(cli + "CONFIG GET 'unixsocket*'").second ==
          "1) \"unixsocket\"\n2) \"" + path + "\"\n3) \"unixsocketperm\"\n4) \"700\"\n");
    // Redis names a Unix client "path:0" at both ends.
    CHECK(run(cli + "CLIENT INFO").second.find("addr=" + path + ":0 laddr=" + path + ":0") != std::string::npos);
    const auto [status, out] = run("redis-benchmark -s " + path + " -q -n 2000 -c 8 -t set,get");
    CHECK(status == 0);
    CHECK(out.find("SET: ") != std::string::npos);
    CHECK(out.find("GET: ") != std::string::npos);
    CHECK(server.terminate() == 0);
  }
  CHECK(file_mode(path) == 0);  // removed at shutdown, as Redis does
}

TEST_CASE("a stale socket file is replaced, and without --unixsocketperm the umask decides", "[kv][e2e]") {
  const std::string exe = pick_exe();
  const Target t{exe, "epoll", kve2e::pick_threads()};
  INFO(t.describe());
  duet::test::TempDir dir("duet-kv-unix");
  const std::string path = dir.file("kv.sock");
  {
    ServerProcess first(exe, "epoll", t.args({"--unixsocket", path}));
    ::kill(first.pid(), SIGKILL);  // dies without removing its socket file
    first.wait_exit();
  }
  REQUIRE(file_mode(path) != 0);
  ServerProcess second(exe, "epoll", t.args({"--unixsocket", path}));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK(file_mode(path) == (0777 & ~mask));
  Client tcp(second.port());
  const std::string expected = "*2\r\n$14\r\nunixsocketperm\r\n$1\r\n0\r\n";
  CHECK(tcp.call(resp({"CONFIG", "GET", "unixsocketperm"}), expected.size()) == expected);
}

TEST_CASE("a Unix socket path that cannot be bound stops the server with exit 1, as redis-server", "[kv][e2e]") {
  const std::string exe = pick_exe();
  const auto [status, out] = run(exe + " --port 0 --unixsocket /nonexistent-dir/kv.sock");
  CHECK(status == 1);
  CHECK(out.find("Failed opening Unix socket: bind /nonexistent-dir/kv.sock: No such file or directory") !=
        std::string::npos);
}

TEST_CASE("a bad --unixsocketperm or an over-long --unixsocket is refused before anything starts", "[kv][e2e]") {
  const std::string exe = pick_exe();
  for (const std::string_view bad : {"999", "abc", "1777", ""}) {
    const std::string flags = " --port 0 --unixsocket /tmp/x.sock --unixsocketperm '" + std::string(bad) + "'";
    const auto [status, out] = run(exe + flags);
    CHECK(status == 2);
    CHECK(out.find("for --unixsocketperm: expected an octal mode 0..777") != std::string::npos);
  }
  const auto [status, out] = run(exe + " --port 0 --unixsocket /tmp/" + std::string(120, 'a'));
  CHECK(status == 2);
  CHECK(out.find("for --unixsocket: expected a socket file path") != std::string::npos);
}
