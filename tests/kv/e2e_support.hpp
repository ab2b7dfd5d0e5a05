// End-to-end test support: start a duet-kv executable on a free loopback port
// and talk to it over raw sockets or through redis-cli.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace kve2e {

// A server process; the destructor stops it with SIGTERM.
class ServerProcess {
 public:
  // open_files_limit > 0 starts the server under `ulimit -n` (via /bin/sh, which execs it).
  // Such a server runs with UBSan's vptr check suppressed: that check asks
  // whether an object's memory is mapped by writing it into a pipe(2), and
  // with every fd taken the pipe fails, so every first-seen virtual call would
  // be reported as "invalid vptr" (a no-op in builds without UBSan).
  ServerProcess(const std::string& exe, const std::string& backend, std::vector<std::string> extra = {},
                int open_files_limit = 0) {
    std::vector<std::string> args;
    if (open_files_limit > 0) {
      write_vptr_suppressions();
      args = {"/bin/sh", "-c",
              "ulimit -n " + std::to_string(open_files_limit) +
                  " && export UBSAN_OPTIONS=\"${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}suppressions=" + suppressions_ +
                  "\" && exec \"$0\" \"$@\""};
    }
    for (const std::string& a : {exe, std::string("--port"), std::string("0"), std::string("--backend"), backend}) {
      args.push_back(a);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    if (posix_spawn(&pid_, args[0].c_str(), &actions, nullptr, argv.data(), environ) != 0) {
      throw std::runtime_error("cannot start " + exe);
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    log_ = ::fdopen(out[0], "r");
    read_port();
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      wait_exit();
    }
    if (log_ != nullptr) std::fclose(log_);
    if (!suppressions_.empty()) ::unlink(suppressions_.c_str());
  }

  [[nodiscard]] int port() const noexcept { return port_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  // Resident memory in KiB, from /proc/<pid>/status.
  [[nodiscard]] long rss_kib() const {
    FILE* f = std::fopen(("/proc/" + std::to_string(pid_) + "/status").c_str(), "r");
    long kib = -1;
    char line[256];
    while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
      if (std::sscanf(line, "VmRSS: %ld", &kib) == 1) break;
    }
    if (f != nullptr) std::fclose(f);
    return kib;
  }
  // CPU time (user + system) used so far, in clock ticks, from /proc/<pid>/stat.
  [[nodiscard]] long cpu_ticks() const {
    FILE* f = std::fopen(("/proc/" + std::to_string(pid_) + "/stat").c_str(), "r");
    char buf[1024] = {};
    std::size_t n = f != nullptr ? std::fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f != nullptr) std::fclose(f);
    const char* p = std::strrchr(buf, ')');  // fields after the command name
    long utime = 0, stime = 0;
    if (n > 0 && p != nullptr) std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime);
    return utime + stime;
  }
  [[nodiscard]] const std::string& log_text() const noexcept { return log_text_; }

  int terminate() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    return wait_exit();
  }

  // Waits for the process to exit (up to `timeout`); returns its exit status or -1.
  int wait_exit(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (pid_ > 0) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return -1;
      }
      ::usleep(10'000);
    }
    return -1;
  }

 private:
  void write_vptr_suppressions() {
    char path[] = "/tmp/duet-kv-ubsan-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp");
    static constexpr char rule[] = "vptr:*\n";  // the check's flag name (-fsanitize=vptr)
    const bool written = ::write(fd, rule, sizeof(rule) - 1) == static_cast<ssize_t>(sizeof(rule) - 1);
    ::close(fd);
    suppressions_ = path;
    if (!written) throw std::runtime_error("cannot write " + suppressions_);
  }

  void read_port() {
    char line[512];
    while (std::fgets(line, sizeof(line), log_) != nullptr) {
      log_text_ += line;
      std::string s(line);
      auto at = s.find("listening on 127.0.0.1:");
      if (at != std::string::npos) {
        port_ = std::atoi(s.c_str() + at + 23);
        return;
      }
    }
    throw std::runtime_error("server did not start: " + log_text_);
  }

  pid_t pid_ = -1;
  FILE* log_ = nullptr;
  std::string log_text_;
  std::string suppressions_;  // the UBSan suppressions file of an fd-starved server
  int port_ = 0;
};

// A blocking loopback client with timeouts.
class Client {
 public:
  // rcvbuf > 0 sets SO_RCVBUF before connecting (a small window: a client
  // that does not read stops the server's sends sooner).
  explicit Client(int port, int rcvbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) throw std::runtime_error("connect");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { ::close(fd_); }

  void send(std::string_view data) {
    if (!try_send(data)) throw std::runtime_error("send failed");
  }
  // False if the server has closed (or reset) the connection.
  bool try_send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Reads until `n` bytes arrived (or timeout / close): returns what arrived.
  std::string read_exact(std::size_t n, int timeout_ms = 10000) {
    std::string out;
    out.reserve(n);
    char buf[1 << 16];
    while (out.size() < n) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) break;
      ssize_t r = ::recv(fd_, buf, std::min(sizeof(buf), n - out.size()), 0);
      if (r <= 0) {
        closed_ = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(r));
    }
    return out;
  }
  // Reads whatever arrives until the peer closes or `quiet_ms` pass without data.
  std::string read_available(int quiet_ms = 300) {
    std::string out;
    char buf[4096];
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, quiet_ms) <= 0) break;
      ssize_t r = ::recv(fd_, buf, sizeof(buf), 0);
      if (r <= 0) {
        closed_ = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(r));
    }
    return out;
  }
  std::string call(std::string_view request, std::size_t reply_size) {
    send(request);
    return read_exact(reply_size);
  }
  [[nodiscard]] bool closed() const noexcept { return closed_; }

 private:
  int fd_ = -1;
  bool closed_ = false;
};

// Runs redis-cli (in its tty format: --no-raw) with `args` against `port`; returns its stdout.
inline std::string redis_cli(int port, const std::string& args) {
  std::string cmd = "redis-cli --no-raw -p " + std::to_string(port) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {};
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// Runs a shell command (bounded by timeout(1)); returns its exit status and stdout + stderr.
inline std::pair<int, std::string> run_command(const std::string& command) {
  FILE* p = ::popen(("timeout 60 " + command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, {}};
  std::string out;
  char buf[4096];
  for (std::size_t n = 0; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline bool have_redis_cli() { return std::system("command -v redis-cli >/dev/null 2>&1") == 0; }

}  // namespace kve2e
