// An example server program run as a child process for an end-to-end test:
// started with its arguments and stdout on a pipe; its first line must be
// "<word> on port N ..." (each example prints it once listening), so port()
// is where to connect. stop() sends SIGTERM and gives the exit status (0: a
// clean stop), or -1 after 5 s (then it is killed: no test leaves it behind);
// the destructor stops it if the test did not. rest() reads what it printed
// after the banner, once it has exited.
//
//   duet::test::ExampleServer server({exe, "--port", "0", "--backend", "epoll"});
//   connect_to(server.port());
//   CHECK(server.stop() == 0);
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace duet::test {

// The value of an environment variable meson test sets (an executable's or a
// script's path); the test fails if it is missing.
inline std::string required_env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) FAIL("set " << name << " (meson test does)");
  return v;
}

class ExampleServer {
 public:
  explicit ExampleServer(std::vector<std::string> args) : args_(std::move(args)) {
    std::vector<char*> argv;
    for (std::string& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    REQUIRE(::pipe(out) == 0);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_adddup2(&files, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&files, out[0]);
    const int spawned = posix_spawn(&pid_, args_[0].c_str(), &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    ::close(out[1]);
    stdout_ = ::fdopen(out[0], "r");
    REQUIRE(spawned == 0);
    char line[256] = {};
    REQUIRE(std::fgets(line, sizeof(line), stdout_) != nullptr);  // "echo on port N (backend...)"
    REQUIRE(std::sscanf(line, "%*s on port %d", &port_) == 1);
  }
  ExampleServer(const ExampleServer&) = delete;
  ExampleServer& operator=(const ExampleServer&) = delete;
  ExampleServer(ExampleServer&&) = delete;
  ExampleServer& operator=(ExampleServer&&) = delete;
  ~ExampleServer() {
    if (pid_ > 0) stop();
    std::fclose(stdout_);
  }

  [[nodiscard]] int port() const noexcept { return port_; }

  int stop() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    bool exited = false;
    for (int waited_ms = 0; !exited && waited_ms < 5'000; waited_ms += 5) {
      exited = ::waitpid(pid_, &status, WNOHANG) == pid_;
      if (!exited) ::usleep(5'000);
    }
    if (!exited) {  // hung: do not leave it behind
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // After stop(): the lines printed after the banner.
  [[nodiscard]] std::vector<std::string> rest() {
    std::vector<std::string> lines;
    char line[256] = {};
    while (std::fgets(line, sizeof(line), stdout_) != nullptr) lines.emplace_back(line);
    return lines;
  }

 private:
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  FILE* stdout_ = nullptr;
  int port_ = 0;
};

}  // namespace duet::test
