// udp_echo_server — duet's UDP echo server in either voice, for bench/udp/run.sh.
//
//   udp_echo_server [--port 7700] [--voice stackless|stackful] [--backend io_uring|epoll] [--count N]
//
// One socket on 127.0.0.1, one receiver: recv_from a datagram (64 KiB buffer),
// send_to it back to its sender, forever. The stackless voice is a Task on an
// EventLoop, the stackful one a fiber on a Scheduler: the same two calls, so
// the two differ only in how a call waits. --count N: exit after N echoes
// (for callgrind.sh's instructions per echo); 0 = forever.
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "duet/io/event_loop.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/udp_socket.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/udp_socket.hpp"

namespace {

char buf[64 * 1024];
long count = 0;  // echoes left before exiting; 0 = forever

bool more() { return count == 0 || --count > 0; }

duet::Task<void> serve(duet::UdpSocket& sock) {
  for (bool go = true; go; go = more()) {
    auto in = co_await sock.recv_from(buf);
    if (in) (void)co_await sock.send_to(std::span<const char>(buf, in->size), in->peer);
  }
}

void serve_fiber(duet::fiber::UdpSocket& sock) {
  for (bool go = true; go; go = more()) {
    auto in = sock.recv_from(buf);
    if (in) (void)sock.send_to(std::span<const char>(buf, in->size), in->peer);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = 7700;
  std::string_view voice = "stackless";
  duet::Backend backend = duet::Backend::io_uring;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--port") port = static_cast<unsigned short>(std::atoi(argv[i + 1]));
    if (flag == "--voice") voice = argv[i + 1];
    if (flag == "--count") count = std::atol(argv[i + 1]);
    if (flag == "--backend") backend = duet::parse_backend(argv[i + 1]).value_or(backend);
  }
  const auto addr = duet::SocketAddress::parse("127.0.0.1", port).value();
  std::printf("duet udp echo (%s, %s) on port %u\n", voice.data(), duet::backend_name(backend).data(), port);
  std::fflush(stdout);
  if (voice == "stackful") {
    duet::fiber::Scheduler scheduler({.backend = backend});
    auto sock = duet::fiber::UdpSocket::bind(addr);
    scheduler.spawn([&sock] { serve_fiber(sock); }).detach();
    scheduler.run();
    return 0;
  }
  duet::EventLoop loop(backend);
  auto sock = duet::UdpSocket::bind(loop, addr);
  duet::run_until_complete(loop, serve(sock));
}
