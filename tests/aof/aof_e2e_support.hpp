// End-to-end support for the AOF tests: start a duet-kv executable with its
// log (stdout and stderr) in a file of its data directory, kill it by pid with
// any signal, and talk RESP to it over loopback.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace aofe2e {

// The executable of a voice, from the environment meson test sets.
inline std::string exe(const char* voice) {
  const char* path = std::getenv(std::string(voice) == "stackless" ? "DUET_KV_STACKLESS" : "DUET_KV_STACKFUL");
  if (path == nullptr) throw std::runtime_error("DUET_KV_STACKLESS / DUET_KV_STACKFUL not set (run through meson test)");
  return path;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// One server process, on port 0 (it picks a free port and logs it) unless
// given one: a restart on the port of a server just killed.
class Server {
 public:
  Server(const std::string& exe, const std::string& backend, const std::string& dir, std::vector<std::string> extra = {},
         int port = 0)
      : log_path_(dir + "/server.log") {
    std::vector<std::string> args = {exe,   "--port", std::to_string(port), "--backend", backend, "--appendonly",
                                     "yes", "--dir",  dir};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int log = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    log_start_ = static_cast<std::size_t>(::lseek(log, 0, SEEK_END));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, log, 1);
    posix_spawn_file_actions_adddup2(&actions, log, 2);
    int r = posix_spawn(&pid_, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(log);
    if (r != 0) throw std::runtime_error("cannot start " + exe);
    wait_ready();
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  [[nodiscard]] int port() const noexcept { return port_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] bool running() const noexcept { return pid_ > 0; }
  [[nodiscard]] int exit_code() const noexcept { return exit_code_; }
  [[nodiscard]] std::string log() const { return read_file(log_path_).substr(log_start_); }

  // Sends `signo` to the server's pid and reaps it (SIGKILL after 10 s).
  int stop(int signo = SIGTERM) {
    if (pid_ <= 0) return exit_code_;
    ::kill(pid_, signo);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!reaped()) {
      if (std::chrono::steady_clock::now() > deadline) ::kill(pid_, SIGKILL);
      ::usleep(2000);
    }
    return exit_code_;
  }

 private:
  bool reaped() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    pid_ = -1;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }

  void wait_ready() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    const std::string marker = "listening on 127.0.0.1:";
    while (std::chrono::steady_clock::now() < deadline) {
      std::string text = log();
      if (auto at = text.find(marker); at != std::string::npos && text.find("Ready", at) != std::string::npos) {
        port_ = std::atoi(text.c_str() + at + marker.size());
        return;
      }
      if (reaped()) return;  // exited: the caller looks at exit_code() and log()
      ::usleep(5000);
    }
    throw std::runtime_error("server did not start: " + log());
  }

  std::string log_path_;
  std::size_t log_start_ = 0;
  pid_t pid_ = -1;
  int port_ = 0;
  int exit_code_ = -1;
};

inline std::string resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// A blocking loopback client that reads whole replies (simple, integer, bulk).
class Client {
 public:
  explicit Client(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("connect");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { ::close(fd_); }

  bool send(const std::string& bytes) {
    std::string_view rest = bytes;
    while (!rest.empty()) {
      ssize_t n = ::send(fd_, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // One reply ("+OK", ":5", "$-1", the bulk's bytes, "-ERR ..."); "" when the connection ended.
  std::string reply(int timeout_ms = 10000) {
    std::string line = read_line(timeout_ms);
    if (line.empty() || line[0] != '$') return line;
    long len = std::atol(line.c_str() + 1);
    if (len < 0) return "(nil)";
    while (buf_.size() < static_cast<std::size_t>(len) + 2 && fill(timeout_ms)) {
    }
    if (buf_.size() < static_cast<std::size_t>(len) + 2) return "";
    std::string value = buf_.substr(0, static_cast<std::size_t>(len));
    buf_.erase(0, static_cast<std::size_t>(len) + 2);
    return value;
  }
  std::string call(const std::vector<std::string>& args) { return send(resp(args)) ? reply() : ""; }

 private:
  bool fill(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char chunk[16384];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
  std::string read_line(int timeout_ms) {
    std::size_t end;
    while ((end = buf_.find("\r\n")) == std::string::npos) {
      if (!fill(timeout_ms)) return "";
    }
    std::string line = buf_.substr(0, end);
    buf_.erase(0, end + 2);
    return line;
  }

  int fd_;
  std::string buf_;
};

// A loopback port this process listens on (so nobody else can bind it) until destruction.
class HeldPort {
 public:
  HeldPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 1) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("cannot hold a loopback port");
    }
    port_ = ntohs(addr.sin_port);
  }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  ~HeldPort() { ::close(fd_); }
  [[nodiscard]] int port() const noexcept { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

// SET pre:0 .. pre:<n-1> in one pipelined batch.
inline bool preload(Client& c, int n) {
  std::string batch;
  for (int i = 0; i < n; ++i) batch += resp({"SET", "pre:" + std::to_string(i), "x"});
  if (!c.send(batch)) return false;
  for (int i = 0; i < n; ++i) {
    if (c.reply() != "+OK") return false;
  }
  return true;
}

// SETs <prefix>0, <prefix>1, ... three per write until `stop` or the
// connection ends; every key the server acknowledged lands in `acked`. A
// random pause of up to 2 ms before each write keeps commands arriving while
// the server waits for an fsync (writers that only wait for their replies
// move in step with the group commit and always arrive between fsyncs).
inline void write_keys(int port, const std::string& prefix, const std::atomic<bool>& stop,
                       std::vector<std::string>& acked) {
  std::minstd_rand rng(std::hash<std::string>{}(prefix));
  try {
    Client c(port);
    for (int i = 0; !stop.load(); i += 3) {
      ::usleep(static_cast<useconds_t>(rng() % 2000));
      std::string batch;
      for (int j = i; j < i + 3; ++j) batch += resp({"SET", prefix + std::to_string(j), "v"});
      if (!c.send(batch)) return;
      for (int j = i; j < i + 3; ++j) {
        if (c.reply(5000) != "+OK") return;
        acked.push_back(prefix + std::to_string(j));
      }
    }
  } catch (const std::exception&) {
  }
}

// INFO persistence until no rewrite is in progress (bounded: 30 s).
inline bool wait_rewrite_done(Client& c) {
  for (int i = 0; i < 6000; ++i) {
    std::string info = c.call({"INFO", "persistence"});
    if (info.find("aof_rewrite_in_progress:0") != std::string::npos) return true;
    ::usleep(5000);
  }
  return false;
}

// How many of `keys` the server does not have (EXISTS, pipelined).
inline std::size_t count_missing(Client& c, const std::vector<std::string>& keys) {
  std::string batch;
  for (const std::string& k : keys) batch += resp({"EXISTS", k});
  if (!c.send(batch)) return keys.size();
  std::size_t missing = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) missing += c.reply() == ":1" ? 0 : 1;
  return missing;
}

// Asks for BGREWRITEAOF again and again until `until` (on a small keyspace each
// one takes a few ms), so a kill lands before, during or right after a switch.
inline int rewrite_until(int port, std::chrono::steady_clock::time_point until) {
  int started = 0;
  try {
    Client admin(port);
    while (std::chrono::steady_clock::now() < until) {
      std::string r = admin.call({"BGREWRITEAOF"});
      if (r.empty()) break;
      started += r[0] == '+' ? 1 : 0;
      ::usleep(3000);
    }
  } catch (const std::exception&) {
  }
  return started;
}

}  // namespace aofe2e
