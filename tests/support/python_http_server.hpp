// PythonHttpServer: Python's http.server (/usr/bin/python3 -m http.server)
// serving a temporary directory on 127.0.0.1, for the HTTP clients' tests: a
// server duet did not write (HTTP/1.0 answers, Content-Length, close).
//
// Contract
// - The constructor writes `files` into a fresh temp dir, picks a free port,
//   starts python by posix_spawn and waits (up to 5 s) until it accepts;
//   ok() is false if it never did (no python3: the test can skip). The
//   destructor kills that one process by pid, reaps it, removes the dir.
//
//   duet::test::PythonHttpServer py({{"a.txt", "hi"}});
//   if (py.ok()) CHECK(client.get(py.url("/a.txt"))->body == "hi");
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace duet::test {

class PythonHttpServer {
 public:
  explicit PythonHttpServer(const std::vector<std::pair<std::string, std::string>>& files) {
    char tmpl[] = "/tmp/duet-http-py-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return;
    dir_ = tmpl;
    for (const auto& [name, content] : files) std::ofstream(dir_ / name, std::ios::binary) << content;
    port_ = free_port();
    std::string port = std::to_string(port_), dir = dir_.string();
    const char* argv[] = {"/usr/bin/python3", "-m",        "http.server", "--bind", "127.0.0.1",
                          "--directory",      dir.c_str(), port.c_str(),  nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pid_ = -1;
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!(ok_ = accepts()) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  PythonHttpServer(const PythonHttpServer&) = delete;
  PythonHttpServer& operator=(const PythonHttpServer&) = delete;
  ~PythonHttpServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  [[nodiscard]] bool ok() const noexcept { return ok_; }
  [[nodiscard]] std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  static sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
  }
  // A port the kernel just handed out (a small race with other processes, as any such pick).
  static std::uint16_t free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
  }
  bool accepts() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(port_);
    bool up = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return up;
  }

  std::filesystem::path dir_;
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
  bool ok_ = false;
};

}  // namespace duet::test
