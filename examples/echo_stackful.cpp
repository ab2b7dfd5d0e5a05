// echo_stackful — a TCP echo server in the stackful voice.
//
//   echo_stackful [--port 7000] [--backend io_uring|epoll]
//   printf hello | nc -q1 127.0.0.1 7000
//
// One fiber accepts; each connection gets its own fiber, detached, which
// owns it until it ends. Stop it with Ctrl-C: the kernel closes the sockets.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <duet/io/event_loop.hpp>
#include <duet/stackful/buffered.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>

namespace {

void echo(duet::fiber::TcpStream conn) {
  duet::fiber::BufferedReader in(conn, 16 * 1024);
  for (;;) {
    auto bytes = in.read_some();  // a view into the reader's buffer, not a copy
    if (!bytes) return;           // EOF or error: closing the stream is all we do
    if (!conn.send_all(*bytes)) return;
  }
}

void serve(duet::EventLoop& loop, std::uint16_t port) {
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::any(port));
  std::printf("echo on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  // No scope object: the scheduler owns detached fibers until they return.
  for (;;) {
    auto conn = listener.accept();
    if (conn) {
      duet::fiber::spawn(echo, std::move(*conn)).detach();
    } else if (conn.error() == std::errc::too_many_files_open) {
      duet::fiber::sleep_for(std::chrono::milliseconds(10));  // back off, do not spin
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 7000;
  duet::Backend backend = duet::Backend::io_uring;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--port") port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
    if (flag == "--backend") backend = duet::parse_backend(argv[i + 1]).value_or(backend);
  }
  duet::fiber::Scheduler scheduler({.backend = backend});
  scheduler.spawn(serve, std::ref(scheduler.loop()), port).join();
}
