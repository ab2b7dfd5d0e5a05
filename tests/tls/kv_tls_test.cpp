// The KV server's TLS port end to end, both executables on both backends:
// redis-cli --tls PING/SET/GET, plain and TLS ports side by side, --port 0
// for TLS only, Redis's --tls-auth-clients meanings, plain text at the TLS
// port, and the flags' own errors.
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "kv/e2e_support.hpp"
#include "support/temp_dir.hpp"
#include "tls/tls_certs.hpp"

using duet::test::tls_certs;
using kve2e::redis_cli;
using kve2e::ServerProcess;

namespace {

std::string exe_of(const std::string& voice) {
  const char* path = std::getenv(voice == "stackless" ? "DUET_KV_STACKLESS" : "DUET_KV_STACKFUL");
  REQUIRE(path != nullptr);
  return path;
}

// A loopback port free a moment ago (the server gets it by number: a TLS port has no "0 picks one").
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Runs a shell command; returns its stdout and stderr.
std::string shell(const std::string& cmd) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n = 0; p != nullptr && (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (p != nullptr) ::pclose(p);
  return out;
}

// The server flags for a TLS port with the test certificates; auth as --tls-auth-clients.
std::vector<std::string> tls_flags(int tls_port, const std::string& auth = "yes") {
  const auto& c = tls_certs();
  return {"--tls-port", std::to_string(tls_port), "--tls-cert-file", c.file("server.crt"), "--tls-key-file",
          c.file("server.key"), "--tls-ca-cert-file", c.file("ca.crt"), "--tls-auth-clients", auth};
}

// redis-cli --tls trusting the test CA; with_cert adds the client certificate.
std::string tls_cli(int port, const std::string& args, bool with_cert = true) {
  const auto& c = tls_certs();
  std::string tls = "--tls --cacert " + c.file("ca.crt") + " ";
  if (with_cert) tls += "--cert " + c.file("client.crt") + " --key " + c.file("client.key") + " ";
  return redis_cli(port, tls + args);
}

// A blocking OpenSSL client: sends QUIT and reads to the end of the stream.
// Returns the reply and SSL_get_error of the read that ended it:
// SSL_ERROR_ZERO_RETURN is a close_notify, anything else a truncation.
std::pair<std::string, int> quit_and_read_to_end(int port) {
  const duet::TlsContext ctx(tls_certs().client());
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const timeval bound{5, 0};  // a server that never ends the stream fails the test, not hangs it
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  SSL* ssl = SSL_new(ctx.native_handle());
  SSL_set_fd(ssl, fd);
  SSL_set1_host(ssl, "localhost");
  std::pair<std::string, int> out{"", -1};
  if (SSL_connect(ssl) == 1 && SSL_write(ssl, "QUIT\r\n", 6) == 6) {
    char buf[256];
    int n = 0;
    while ((n = SSL_read(ssl, buf, sizeof buf)) > 0) out.first.append(buf, static_cast<std::size_t>(n));
    out.second = SSL_get_error(ssl, n);
  }
  SSL_free(ssl);
  ::close(fd);
  return out;
}

}  // namespace

TEST_CASE("redis-cli --tls runs PING, SET and GET against a TLS-only server (--port 0)") {
  const std::string voice = GENERATE(std::string("stackless"), std::string("stackful"));
  const std::string backend = GENERATE(std::string("io_uring"), std::string("epoll"));
  INFO(voice << " on " << backend);
  const int tls_port = free_port();
  ServerProcess server(exe_of(voice), backend, tls_flags(tls_port));
  CHECK(server.port() == tls_port);  // the only listening line is the TLS port's
  CHECK_THAT(server.log_text(), Catch::Contains("(TLS)"));
  CHECK(tls_cli(tls_port, "PING") == "PONG\n");
  CHECK(tls_cli(tls_port, "SET greeting hello") == "OK\n");
  CHECK(tls_cli(tls_port, "GET greeting") == "\"hello\"\n");
}

TEST_CASE("plain and TLS ports serve side by side, one keyspace") {
  const std::string voice = GENERATE(std::string("stackless"), std::string("stackful"));
  const std::string backend = GENERATE(std::string("io_uring"), std::string("epoll"));
  INFO(voice << " on " << backend);
  const int plain_port = free_port();
  const int tls_port = free_port();
  auto flags = tls_flags(tls_port);
  flags.insert(flags.end(), {"--port", std::to_string(plain_port)});
  ServerProcess server(exe_of(voice), backend, flags);
  CHECK(server.port() == plain_port);
  CHECK(tls_cli(tls_port, "SET k over-tls") == "OK\n");
  CHECK(redis_cli(plain_port, "GET k") == "\"over-tls\"\n");
  // Plain text at the TLS port: the handshake fails, the connection is closed, the server goes on.
  kve2e::Client plain(tls_port);
  plain.send("*1\r\n$4\r\nPING\r\n");
  const std::string reply = plain.read_available(2000);
  CHECK(reply.find("PONG") == std::string::npos);
  CHECK(plain.closed());
  CHECK(tls_cli(tls_port, "PING") == "PONG\n");
}

TEST_CASE("--tls-auth-clients yes requires a client certificate, optional and no do not") {
  const std::string voice = GENERATE(std::string("stackless"), std::string("stackful"));
  const std::string backend = GENERATE(std::string("io_uring"), std::string("epoll"));
  INFO(voice << " on " << backend);
  for (const std::string auth : {"yes", "optional", "no"}) {
    INFO("--tls-auth-clients " << auth);
    const int tls_port = free_port();
    ServerProcess server(exe_of(voice), backend, tls_flags(tls_port, auth));
    CHECK(tls_cli(tls_port, "PING", true) == "PONG\n");
    if (auth == "yes") {
      CHECK(tls_cli(tls_port, "PING", false) != "PONG\n");
    } else {
      CHECK(tls_cli(tls_port, "PING", false) == "PONG\n");
    }
  }
}

TEST_CASE("TLS flags that cannot work stop the server with a message naming the flag") {
  const std::string exe = exe_of("stackless");
  const auto& c = tls_certs();
  auto run = [&](const std::string& args) {
    const std::string cmd = exe + " --port 0 " + args + " >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(run("--tls-port 1") == 2);  // no certificate
  CHECK(run("--tls-port 1 --tls-cert-file x --tls-key-file y --tls-auth-clients maybe") == 2);
  CHECK(run("--tls-port 1 --tls-cert-file " + c.file("server.crt") + " --tls-key-file " + c.file("server.key")) ==
        2);  // auth yes without a CA
  CHECK(run("--tls-port 1 --tls-cert-file /nonexistent.crt --tls-key-file " + c.file("server.key") +
            " --tls-auth-clients no") == 1);  // a file that does not load
}

TEST_CASE("a client resumes its TLS session on the KV server's TLS port (openssl s_client -sess_in)") {
  const std::string voice = GENERATE(std::string("stackless"), std::string("stackful"));
  const std::string backend = GENERATE(std::string("io_uring"), std::string("epoll"));
  INFO(voice << " on " << backend);
  const int tls_port = free_port();
  ServerProcess server(exe_of(voice), backend, tls_flags(tls_port, "no"));
  duet::test::TempDir dir("duet-tls-session");
  const std::string s_client = "openssl s_client -connect 127.0.0.1:" + std::to_string(tls_port) + " -CAfile " +
                               tls_certs().file("ca.crt") + " ";
  // PING, then wait for the reply and the TLS 1.3 tickets that follow the handshake.
  auto run = [](const std::string& cmd) { return shell("(printf 'PING\\r\\n'; sleep 0.5) | timeout 10 " + cmd); };
  const std::string first = run(s_client + "-sess_out " + dir.file("session"));
  CHECK_THAT(first, Catch::Contains("+PONG"));
  CHECK_THAT(first, Catch::Contains("New, TLSv1.3"));
  const std::string second = run(s_client + "-sess_in " + dir.file("session"));
  CHECK_THAT(second, Catch::Contains("Reused, TLSv1.3"));
  CHECK_THAT(second, Catch::Contains("+PONG"));
}

TEST_CASE("a subscriber on the TLS port gets what a plain-port client publishes, every message in order") {
  const std::string voice = GENERATE(std::string("stackless"), std::string("stackful"));
  const std::string backend = GENERATE(std::string("io_uring"), std::string("epoll"));
  INFO(voice << " on " << backend);
  const int plain_port = free_port();
  const int tls_port = free_port();
  auto flags = tls_flags(tls_port);
  flags.insert(flags.end(), {"--port", std::to_string(plain_port)});
  ServerProcess server(exe_of(voice), backend, flags);
  const auto& c = tls_certs();
  std::string out;
  std::thread cli([&] {
    // Bounded: redis-cli waits for messages forever, `timeout` ends it. Its
    // TLS connection holds a recv pending while the server sends the pushes.
    out = shell("timeout 3 redis-cli --tls --cacert " + c.file("ca.crt") + " --cert " + c.file("client.crt") +
                " --key " + c.file("client.key") + " -p " + std::to_string(tls_port) + " subscribe news");
  });
  bool subscribed = false;
  for (int i = 0; i < 100 && !subscribed; ++i) {
    subscribed = redis_cli(plain_port, "PUBSUB NUMSUB news") == "1) \"news\"\n2) (integer) 1\n";
    if (!subscribed) ::usleep(20'000);
  }
  CHECK(subscribed);
  std::string expected = "subscribe\nnews\n1\n";
  for (int i = 0; i < 50; ++i) {
    CHECK(redis_cli(plain_port, "PUBLISH news m" + std::to_string(i)) == "(integer) 1\n");
    expected += "message\nnews\nm" + std::to_string(i) + "\n";
  }
  cli.join();
  CHECK(out == expected);
}

TEST_CASE("after QUIT the TLS port ends the session with close_notify, not a bare TCP FIN") {
  const std::string voice = GENERATE(std::string("stackless"), std::string("stackful"));
  const std::string backend = GENERATE(std::string("io_uring"), std::string("epoll"));
  INFO(voice << " on " << backend);
  const int tls_port = free_port();
  ServerProcess server(exe_of(voice), backend, tls_flags(tls_port, "no"));
  const auto [reply, end] = quit_and_read_to_end(tls_port);
  CHECK(reply == "+OK\r\n");
  CHECK(end == SSL_ERROR_ZERO_RETURN);  // before the fix: SSL_ERROR_SSL (unexpected EOF)
}
