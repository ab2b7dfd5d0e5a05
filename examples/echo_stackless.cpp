// echo_stackless — a TCP echo server in the stackless voice.
//
//   echo_stackless [--port 7000] [--backend io_uring|epoll]
//   printf hello | nc -q1 127.0.0.1 7000
//
// One task accepts; each connection gets its own task in a TaskScope, which
// owns it until it ends. Stop it with Ctrl-C: the kernel closes the sockets.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <duet/io/event_loop.hpp>
#include <duet/task/buffered.hpp>
#include <duet/task/run.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tcp_stream.hpp>

namespace {

duet::Task<void> echo(duet::TcpStream conn) {
  duet::BufferedReader in(conn, 16 * 1024);
  for (;;) {
    auto bytes = co_await in.read_some();  // a view into the reader's buffer, not a copy
    if (!bytes) co_return;                 // EOF or error: closing the stream is all we do
    if (!co_await conn.send_all(*bytes)) co_return;
  }
}

duet::Task<void> serve(duet::EventLoop& loop, std::uint16_t port) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(port));
  std::printf("echo on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  duet::TaskScope scope;
  for (;;) {
    auto conn = co_await listener.accept();
    if (conn) {
      scope.spawn(echo(std::move(*conn)));
    } else if (conn.error() == std::errc::too_many_files_open) {
      co_await duet::sleep_for(loop, std::chrono::milliseconds(10));  // back off, do not spin
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
  duet::EventLoop loop(backend);
  duet::run_until_complete(loop, serve(loop, port));
}
