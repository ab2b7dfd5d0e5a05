// The code docs/GUIDE.md quotes in the stackful "Datagrams and Unix sockets"
// section; check_guide_stackful.py keeps the two equal. The test cases at the
// bottom run the snippets on both backends.
#include <catch2/catch.hpp>

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/stackful/udp_socket.hpp>
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;

namespace guide_fiber_udp {

// guide:begin fiber_udp
void udp_echo(duet::fiber::UdpSocket& sock, int datagrams) {
  char buf[1500];
  for (int i = 0; i < datagrams; ++i) {
    auto in = sock.recv_from(buf, 5s);  // IoResult<Datagram>; blocks this fiber only
    if (!in) return;                    // timed_out, operation_canceled, ...
    if (in->truncated) continue;        // longer than buf: its tail is lost, drop it
    (void)sock.send_to(std::span<const char>(buf, in->size), in->peer);
  }
}

std::string ask(const duet::SocketAddress& server) {
  auto sock = duet::fiber::UdpSocket::open(server.family());
  if (!sock.connect(server)) return "";
  (void)sock.send(std::string_view("ping"));
  char buf[64];
  auto reply = sock.recv(buf, 500ms);  // UDP may lose it: always bound the wait
  return reply ? std::string(buf, reply->size) : "";
}
// guide:end

// guide:begin fiber_unix
std::string unix_round_trip(const std::string& name) {  // "/run/app.sock" or "@app"
  auto addr = duet::SocketAddress::unix_domain(name).value();
  auto listener = duet::fiber::UnixListener::bind(addr, {.unix_mode = 0600});
  auto server = duet::fiber::spawn([&listener] {
    auto conn = listener.accept(2s);
    if (conn) (void)conn->send_all(std::string_view("hello over AF_UNIX\n"));
  });
  auto conn = duet::fiber::UnixStream::connect(addr, 2s);
  if (!conn) return conn.error().message();
  char buf[64];
  auto n = conn->recv(buf, 2s);
  server.join();
  return n ? std::string(buf, *n) : n.error().message();
}
// guide:end

}  // namespace guide_fiber_udp

TEST_CASE("guide: the fiber UDP echo answers ask() on both backends") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::fiber::Scheduler scheduler({.backend = backend});
  auto reply = scheduler.spawn([] {
    auto server = duet::fiber::UdpSocket::bind(duet::SocketAddress::parse("::1", 0).value());
    auto echo = duet::fiber::spawn([&server] { guide_fiber_udp::udp_echo(server, 1); });
    std::string got = guide_fiber_udp::ask(server.local_address());
    echo.join();
    return got;
  });
  CHECK(reply.join() == "ping");
}

TEST_CASE("guide: a fiber's Unix socket round trip works over a path and an abstract name") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::test::TempDir dir("duet-guide-fiber-unix");
  for (const std::string& name : {dir.file("app.sock"), "@duet-guide-" + std::to_string(::getpid())}) {
    duet::fiber::Scheduler scheduler({.backend = backend});
    CHECK(scheduler.spawn([&name] { return guide_fiber_udp::unix_round_trip(name); }).join() == "hello over AF_UNIX\n");
  }
}
