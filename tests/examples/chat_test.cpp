// End-to-end tests of the chat examples (examples/chat_*.cpp): both
// executables on both backends, spoken to over loopback by plain blocking
// sockets with poll() timeouts, so no test can hang the suite.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "example_server.hpp"

namespace {

constexpr int io_timeout_ms = 10'000;  // the longest any one read may wait

// The chat executable, started with --port 0; SIGTERM in the destructor.
class ChatServer : public duet::test::ExampleServer {
 public:
  ChatServer(const std::string& exe, const std::string& backend)
      : ExampleServer({exe, "--port", "0", "--backend", backend}) {}
};

// One chat client; rcvbuf > 0 shrinks SO_RCVBUF before connecting.
class ChatClient {
 public:
  explicit ChatClient(int port, int rcvbuf = 0) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) throw std::runtime_error("connect");
  }
  ChatClient(const ChatClient&) = delete;
  ChatClient& operator=(const ChatClient&) = delete;
  ~ChatClient() { ::close(fd_); }

  void say(std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send");
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // The next whole line without its '\n'; "" once the server closed or after the timeout.
  std::string next_line() {
    for (;;) {
      if (auto end = buffered_.find('\n'); end != std::string::npos) {
        std::string line = buffered_.substr(0, end);
        buffered_.erase(0, end + 1);
        return line;
      }
      if (!fill()) return {};
    }
  }
  // Reads and discards until the server closes; true if it did within the timeout.
  bool closed_by_server(std::size_t& lines) {
    for (;;) {
      for (auto end = buffered_.find('\n'); end != std::string::npos; end = buffered_.find('\n')) {
        buffered_.erase(0, end + 1);
        ++lines;
      }
      if (!fill()) return eof_;
    }
  }

 private:
  bool fill() {
    pollfd p{fd_, POLLIN, 0};
    if (eof_ || ::poll(&p, 1, io_timeout_ms) <= 0) return false;
    char buf[16 * 1024];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) eof_ = true;  // EOF or a reset: either way the server let go
    if (n > 0) buffered_.append(buf, static_cast<std::size_t>(n));
    return n > 0;
  }

  int fd_;
  std::string buffered_;
  bool eof_ = false;
};

struct Target {
  std::string exe;
  std::string backend;
};

Target pick_target() {
  const std::string voice = GENERATE(as<std::string>{}, "DUET_CHAT_STACKLESS", "DUET_CHAT_STACKFUL");
  const std::string backend = GENERATE(as<std::string>{}, "io_uring", "epoll");
  const char* exe = std::getenv(voice.c_str());
  if (exe == nullptr) FAIL(voice << " is not set (meson test sets it)");
  return {exe, backend};
}

std::vector<std::unique_ptr<ChatClient>> connect_clients(int port, int count) {
  std::vector<std::unique_ptr<ChatClient>> clients;
  for (int i = 0; i < count; ++i) clients.push_back(std::make_unique<ChatClient>(port));
  return clients;
}

// Sessions join the room in accept order, so once a line from the last client
// reaches the others, every earlier client is in the room too.
void wait_until_all_joined(std::vector<std::unique_ptr<ChatClient>>& clients) {
  clients.back()->say("ready\n");
  for (std::size_t i = 0; i + 1 < clients.size(); ++i) REQUIRE(clients[i]->next_line() == "ready");
}

std::string chat_line(int sender, int seq) {
  return std::to_string(sender) + " " + std::to_string(seq) + " " + std::string(80, 'a' + sender % 26) + "\n";
}

// Every receiver gets lines_each lines from every other sender, each once, in
// the sender's order (seq 0, 1, 2, ...), and none of its own.
void receive_round(std::vector<std::unique_ptr<ChatClient>>& clients, int lines_each,
                   std::vector<std::vector<int>>& next) {
  const int count = static_cast<int>(clients.size());
  for (int receiver = 0; receiver < count; ++receiver) {
    for (int k = 0; k < (count - 1) * lines_each; ++k) {
      const std::string line = clients[receiver]->next_line();
      int sender = -1;
      int seq = -1;
      REQUIRE(std::sscanf(line.c_str(), "%d %d", &sender, &seq) == 2);
      REQUIRE(sender != receiver);
      REQUIRE(line + "\n" == chat_line(sender, seq));
      REQUIRE(seq == next[receiver][sender]++);
    }
  }
}

}  // namespace

TEST_CASE("every line reaches every other client once and in order while a client that never reads is dropped",
          "[examples][chat]") {
  const Target t = pick_target();
  INFO(t.exe << " --backend " << t.backend);
  ChatServer server(t.exe, t.backend);
  ChatClient sleeper(server.port(), 4096);  // never reads: its outbox must overflow
  auto clients = connect_clients(server.port(), 50);
  wait_until_all_joined(clients);

  constexpr int rounds = 30;
  constexpr int lines_each = 4;  // 49 * 4 lines in flight per receiver: under the outbox's 256
  std::vector<std::vector<int>> next(clients.size(), std::vector<int>(clients.size(), 0));
  for (int round = 0; round < rounds; ++round) {
    for (int sender = 0; sender < static_cast<int>(clients.size()); ++sender) {
      std::string batch;
      for (int k = 0; k < lines_each; ++k) batch += chat_line(sender, round * lines_each + k);
      clients[sender]->say(batch);
    }
    receive_round(clients, lines_each, next);
  }

  std::size_t sleeper_lines = 0;
  CHECK(sleeper.closed_by_server(sleeper_lines));
  CHECK(sleeper_lines < 1 + clients.size() * rounds * lines_each);  // "ready" and the chat, cut short
  CHECK(server.stop() == 0);  // SIGTERM with 50 clients connected: a clean stop
}

TEST_CASE("a line longer than 4 KiB drops its sender and the room goes on", "[examples][chat]") {
  const Target t = pick_target();
  INFO(t.exe << " --backend " << t.backend);
  ChatServer server(t.exe, t.backend);
  auto clients = connect_clients(server.port(), 3);
  wait_until_all_joined(clients);

  clients[0]->say(std::string(4097, 'x') + "\n");
  std::size_t lines = 0;
  CHECK(clients[0]->closed_by_server(lines));
  clients[1]->say("still here\n");
  CHECK(clients[2]->next_line() == "still here");
  clients[2]->say(std::string(4096, 'y') + "\n");  // exactly the limit passes
  CHECK(clients[1]->next_line() == std::string(4096, 'y'));
  CHECK(server.stop() == 0);
}
