// End-to-end test of examples/line_server.cpp, the GUIDE's complete line
// server: pipelined lines, "\r\n", a line past the maximum, on both backends.
// Spoken to by a plain blocking socket with a receive timeout, so it cannot hang.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "example_server.hpp"

namespace {

class Client {
 public:
  explicit Client(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    const timeval timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { ::close(fd_); }

  void send(const std::string& s) const {
    REQUIRE(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
  }
  // Reads until `want` bytes came, or EOF, or the timeout.
  [[nodiscard]] std::string recv(std::size_t want) const {
    std::string got;
    char buf[4096];
    while (got.size() < want) {
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }

 private:
  int fd_;
};

TEST_CASE("the GUIDE's line server answers pipelined lines and refuses one past its maximum",
          "[examples][buffered]") {
  const char* exe = std::getenv("DUET_LINE_SERVER");
  REQUIRE(exe != nullptr);
  const std::string backend = GENERATE("io_uring", "epoll");
  INFO("backend " << backend);
  duet::test::ExampleServer server({exe, "0", backend});
  Client client(server.port());
  client.send("hello\nworld\r\n\nlast");
  CHECK(client.recv(17) == "5 hello\n5 world\n0 \n");
  client.send(" one\n");
  CHECK(client.recv(11) == "8 last one\n");
  client.send(std::string(2000, 'x') + "\n");
  CHECK(client.recv(100) == "ERR line too long\n");  // then the server closes: EOF
}

}  // namespace
