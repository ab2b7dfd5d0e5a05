// A blocking HTTP/1.1 client over one loopback TCP connection, for the
// servers' tests: it sends exact bytes and reads exact responses, so a test
// sees what is on the wire. Runs on a thread of its own beside the server's
// loop (HttpServerHarness), so it uses no Catch2 assertion: it throws
// std::runtime_error, which the harness carries to the test's thread.
//
//   duet::test::RawHttpClient c(port);
//   c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
//   RawResponse r = c.read_response();   // r.status == 200, r.body == "hello"
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace duet::test {

struct RawResponse {
  int status = 0;
  std::string head;  // status line and fields, up to the blank line
  std::string body;  // de-chunked
  [[nodiscard]] bool has(std::string_view field_line) const { return head.find(field_line) != std::string::npos; }
};

class RawHttpClient {
 public:
  // rcvbuf > 0: a receive buffer that small, set before connecting (a client that reads slowly).
  explicit RawHttpClient(std::uint16_t port, std::chrono::milliseconds timeout = std::chrono::seconds(5),
                         int rcvbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("socket");
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect");
  }
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;
  ~RawHttpClient() { ::close(fd_); }

  void send(std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // One response: the head, then a Content-Length or chunked body (or none
  // for 1xx/204/304/HEAD, when no_body).
  RawResponse read_response(bool no_body = false) {
    RawResponse r;
    std::size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) fill("a response head");
    r.head = buffer_.substr(0, end + 2);
    buffer_.erase(0, end + 4);
    r.status = std::atoi(r.head.c_str() + 9);
    if (no_body || r.status < 200 || r.status == 204 || r.status == 304) return r;
    if (const auto cl = field(r.head, "Content-Length"); !cl.empty()) {
      const auto n = static_cast<std::size_t>(std::stoull(cl));
      while (buffer_.size() < n) fill("a body");
      r.body = buffer_.substr(0, n);
      buffer_.erase(0, n);
    } else if (field(r.head, "Transfer-Encoding") == "chunked") {
      r.body = read_chunks();
    } else {
      r.body = read_until_close();  // close-delimited
    }
    return r;
  }

  // Exactly n bytes (what follows a 101: the WebSocket's frames).
  std::string read_exactly(std::size_t n) {
    while (buffer_.size() < n) fill("the expected bytes");
    std::string out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return out;
  }

  // Everything until the server closes (what was buffered first).
  std::string read_until_close() {
    while (!closed_) fill_or_eof();
    return std::exchange(buffer_, {});
  }
  // Whether the server closed within the timeout (reading and dropping what comes first).
  bool closed_by_server() {
    try {
      read_until_close();
      return true;
    } catch (const std::runtime_error&) {
      return false;
    }
  }
  [[nodiscard]] int fd() const noexcept { return fd_; }

  static std::string field(std::string_view head, std::string_view name) {
    const std::string key = "\r\n" + std::string(name) + ": ";
    const auto at = head.find(key);
    if (at == std::string_view::npos) return {};
    const auto from = at + key.size();
    return std::string(head.substr(from, head.find("\r\n", from) - from));
  }

 private:
  std::string read_chunks() {
    std::string body;
    for (;;) {
      std::size_t eol;
      while ((eol = buffer_.find("\r\n")) == std::string::npos) fill("a chunk size");
      const auto size = static_cast<std::size_t>(std::stoull(buffer_.substr(0, eol), nullptr, 16));
      if (size == 0) {  // "0\r\n\r\n": our servers send no trailers
        while (buffer_.size() < eol + 4) fill("the last chunk");
        buffer_.erase(0, eol + 4);
        return body;
      }
      while (buffer_.size() < eol + 2 + size + 2) fill("a chunk");
      body.append(buffer_, eol + 2, size);
      buffer_.erase(0, eol + 2 + size + 2);
    }
  }
  void fill(const char* what) {
    fill_or_eof();
    if (closed_) throw std::runtime_error(std::string("the server closed before ") + what);
  }
  void fill_or_eof() {
    char buf[16384];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) return (void)buffer_.append(buf, static_cast<std::size_t>(n));
    if (n == 0 || errno == ECONNRESET) {
      closed_ = true;
      return;
    }
    throw std::runtime_error("recv timed out or failed");
  }

  int fd_ = -1;
  std::string buffer_;
  bool closed_ = false;
};

}  // namespace duet::test
