// HttpTestServer: a tiny scripted HTTP/1.1 server for the clients' tests
// (tests/task/http_client_test.cpp, tests/stackful/http_client_fiber_test.cpp),
// written with the raw duet::TcpListener / TcpStream and the server's own
// RequestParser, on a thread and an EventLoop of its own (the backend of the
// test), so either client voice talks to it over 127.0.0.1.
//
// Paths: /fixed (Content-Length "hello"), /chunked ("hello world", trailer
// X-Check), /close (body until the close), /echo (the request body back),
// /head-info (Content-Length 5, no body for HEAD), /stale (keep-alive
// promised, then closed), /stall (never answers), /slow?N (answers "slow-N"
// after N ms), /interim (100 Continue, then "after"), /quit (stops it). Every
// answer carries X-Method. accepts() counts connections. Given a server
// TlsContext it also serves the same paths over TLS on tls_port() (https_url()).
//
//   duet::test::HttpTestServer server(Backend::epoll);
//   auto r = co_await client.get(server.url("/fixed"));
//   CHECK(server.accepts() == 1);
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>

#include "duet/http/request_parser.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/tls_stream.hpp"
#include "duet/task/when_all.hpp"
#include "duet/tls/tls_context.hpp"

namespace duet::test {

struct HttpScriptReply {
  std::string bytes;
  int delay_ms = 0;
  bool close = false;  // close the connection after the reply
  bool stall = false;  // no reply: wait until the client goes away
  bool quit = false;
};

inline std::string fixed_reply(std::string_view method, std::string_view body, std::string_view status = "200 OK") {
  return "HTTP/1.1 " + std::string(status) + "\r\nX-Method: " + std::string(method) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

inline HttpScriptReply http_script(std::string_view method, std::string_view target, std::string_view body) {
  if (target == "/fixed") return {fixed_reply(method, "hello")};
  if (target == "/chunked")
    return {
        "HTTP/1.1 200 OK\r\nX-Method: GET\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6\r\n world\r\n0\r\nX-Check: 1\r\n\r\n"};
  if (target == "/close") return {"HTTP/1.1 200 OK\r\nX-Method: GET\r\n\r\nuntil the close", 0, true};
  if (target == "/echo") return {fixed_reply(method, body)};
  if (target == "/head-info") return {"HTTP/1.1 200 OK\r\nX-Method: HEAD\r\nContent-Length: 5\r\n\r\n"};
  if (target == "/stale") return {fixed_reply(method, "stale"), 0, true};
  if (target == "/stall") return {{}, 0, false, true};
  if (target.substr(0, 6) == "/slow?") {
    int ms = std::stoi(std::string(target.substr(6)));
    return {fixed_reply(method, "slow-" + std::to_string(ms)), ms};
  }
  if (target == "/interim") return {"HTTP/1.1 100 Continue\r\n\r\n" + fixed_reply(method, "after")};
  if (target == "/quit") return {fixed_reply(method, "bye"), 0, true, false, true};
  return {fixed_reply(method, "no such path", "404 Not Found")};
}

struct HttpServerState {
  std::stop_source stop;
  std::atomic<int> accepts{0};
};

// Reads requests off one connection (TcpStream or TlsStream) and answers them in order.
template <typename Stream>
Task<void> serve_http_conn(EventLoop& loop, Stream conn, HttpServerState& st) {
  http::RequestParser parser;
  std::string buf, method, target, body;
  char tmp[4096];
  const std::stop_token token = st.stop.get_token();
  for (;;) {
    std::size_t start = 0;
    bool complete = false, bad = false;
    while (!complete && !bad) {
      http::ParseEvent ev = parser.parse(std::string_view(buf).substr(start));
      start += parser.consumed();
      if (ev == http::ParseEvent::need_more) break;
      if (ev == http::ParseEvent::error) bad = true;
      if (ev == http::ParseEvent::head) {
        method = parser.head().method;
        target = parser.head().target;
        body.clear();
      }
      if (ev == http::ParseEvent::body) body += parser.body();
      if (ev == http::ParseEvent::message_end) complete = true;
    }
    if (bad) co_return;
    buf.erase(0, start);  // the head was copied out: compacting is safe
    if (!complete) {
      auto n = co_await conn.recv(std::span<char>(tmp), token);
      if (!n) co_return;
      buf.append(tmp, *n);
      continue;
    }
    HttpScriptReply reply = http_script(method, target, body);
    if (reply.delay_ms > 0) {
      bool full = co_await sleep_for(loop, std::chrono::milliseconds(reply.delay_ms), token);
      if (!full) co_return;
    }
    while (reply.stall) {
      auto n = co_await conn.recv(std::span<char>(tmp), token);
      if (!n) co_return;
    }
    auto sent = co_await conn.send_all(std::string_view(reply.bytes), token);
    if (!sent) co_return;
    if (reply.quit) st.stop.request_stop();
    if (reply.close) co_return;
  }
}

// tls: null for plain HTTP, else the server's context (each connection in a TlsStream).
inline Task<void> accept_http(EventLoop& loop, TcpListener& listener, HttpServerState& st, const TlsContext* tls) {
  TaskScope scope;
  for (;;) {
    auto conn = co_await listener.accept(st.stop.get_token());
    if (!conn) break;
    st.accepts.fetch_add(1);
    if (tls != nullptr) {
      scope.spawn(serve_http_conn(loop, TlsStream(std::move(*conn), *tls), st));
    } else {
      scope.spawn(serve_http_conn(loop, std::move(*conn), st));
    }
  }
  co_await scope.join();
}

inline Task<void> serve_http(EventLoop& loop, TcpListener& plain, TcpListener* secure, HttpServerState& st,
                             const TlsContext* tls) {
  if (secure == nullptr) {
    co_await accept_http(loop, plain, st, nullptr);
  } else {
    co_await when_all(accept_http(loop, plain, st, nullptr), accept_http(loop, *secure, st, tls));
  }
}

class HttpTestServer {
 public:
  // tls: a server context (outliving the server) to serve HTTPS as well.
  explicit HttpTestServer(Backend backend, const TlsContext* tls = nullptr) {
    std::promise<std::pair<std::uint16_t, std::uint16_t>> ports;
    auto got = ports.get_future();
    thread_ = std::thread([this, backend, tls, p = std::move(ports)]() mutable {
      EventLoop loop(backend);
      auto plain = TcpListener::bind(loop, *SocketAddress::parse("127.0.0.1", 0));
      TcpListener secure;
      if (tls != nullptr) secure = TcpListener::bind(loop, *SocketAddress::parse("127.0.0.1", 0));
      p.set_value({plain.local_address().port(), tls != nullptr ? secure.local_address().port() : std::uint16_t{0}});
      run_until_complete(loop, serve_http(loop, plain, tls != nullptr ? &secure : nullptr, state_, tls));
    });
    std::tie(port_, tls_port_) = got.get();
  }
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;
  ~HttpTestServer() {
    quit();
    thread_.join();
  }

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  [[nodiscard]] int accepts() const noexcept { return state_.accepts.load(); }
  [[nodiscard]] std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  [[nodiscard]] std::string https_url(std::string_view host, std::string_view path) const {
    return "https://" + std::string(host) + ":" + std::to_string(tls_port_) + std::string(path);
  }

 private:
  // A plain blocking client on the test's thread: GET /quit, read to the close.
  void quit() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      const char req[] = "GET /quit HTTP/1.1\r\nHost: t\r\n\r\n";
      if (::send(fd, req, sizeof req - 1, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof req - 1)) {
        char buf[256];
        while (::recv(fd, buf, sizeof buf, 0) > 0) {
        }
      }
    }
    ::close(fd);
  }

  HttpServerState state_;
  std::uint16_t port_ = 0;
  std::uint16_t tls_port_ = 0;
  std::thread thread_;
};

}  // namespace duet::test
