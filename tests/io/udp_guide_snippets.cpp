// The code docs/GUIDE.md quotes in "Datagrams: UdpSocket" and "Unix domain
// sockets" (stackless part); check_guide.py keeps the two equal. The test cases
// at the bottom run the snippets on both backends.
#include <catch2/catch.hpp>

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include <duet/task/run.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tcp_stream.hpp>
#include <duet/task/udp_socket.hpp>
#include <duet/task/when_all.hpp>
#include <duet/task/with_timeout.hpp>
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;

namespace guide_udp {

// guide:begin udp_echo
duet::Task<void> udp_echo(duet::UdpSocket& sock, int datagrams) {
  char buf[1500];
  for (int i = 0; i < datagrams; ++i) {
    auto in = co_await sock.recv_from(buf);  // IoResult<Datagram>
    if (!in) co_return;                      // an error value: canceled, timed out, ...
    if (in->truncated) continue;             // longer than buf: its tail is lost, drop it
    (void)co_await sock.send_to(std::span<const char>(buf, in->size), in->peer);
  }
}

duet::Task<std::string> ask(duet::EventLoop& loop, duet::SocketAddress server) {
  auto sock = duet::UdpSocket::open(loop, server.family());  // bound on first send
  if (!sock.connect(server)) co_return "";                 // only records the peer
  (void)co_await sock.send(std::string_view("ping"));
  char buf[64];
  auto reply = co_await duet::with_timeout(sock.recv(buf), 500ms);  // UDP may lose it
  co_return reply ? std::string(buf, reply->size) : "";
}
// guide:end

// guide:begin unix_server
duet::Task<void> greet(duet::UnixStream conn) {
  (void)co_await conn.send_all(std::string_view("hello over AF_UNIX\n"));
}

duet::Task<void> unix_server(duet::EventLoop& loop, std::string path, int connections) {
  // A path ("/run/app.sock") or an abstract name ("@app", no file at all).
  auto addr = duet::SocketAddress::unix_domain(path).value();
  // A stale socket file at path is replaced; unix_mode chmods the new one.
  auto listener = duet::UnixListener::bind(loop, addr, {.unix_mode = 0600});
  duet::TaskScope scope;
  for (int i = 0; i < connections; ++i) {
    auto conn = co_await listener.accept();
    if (conn) scope.spawn(greet(std::move(*conn)));
  }
  co_await scope.join();
}
// guide:end

}  // namespace guide_udp

TEST_CASE("guide: the UDP echo answers ask() on both backends") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::EventLoop loop(backend);
  auto server = duet::UdpSocket::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  auto [none, reply] = duet::run_until_complete(
      loop, duet::when_all(guide_udp::udp_echo(server, 1), guide_udp::ask(loop, server.local_address())));
  (void)none;
  CHECK(reply == "ping");
}

TEST_CASE("guide: the Unix socket server greets a client on both backends") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::test::TempDir dir("duet-guide-unix");
  const std::string path = dir.file("app.sock");
  duet::EventLoop loop(backend);
  auto client = [](duet::EventLoop& lp, std::string at) -> duet::Task<std::string> {
    auto conn = co_await duet::UnixStream::connect(lp, duet::SocketAddress::unix_domain(at).value());
    if (!conn) co_return conn.error().message();
    char buf[64];
    auto n = co_await duet::with_timeout(conn->recv(buf), 2s);
    co_return n ? std::string(buf, *n) : n.error().message();
  };
  auto [none, got] =
      duet::run_until_complete(loop, duet::when_all(guide_udp::unix_server(loop, path, 1), client(loop, path)));
  (void)none;
  CHECK(got == "hello over AF_UNIX\n");
}
