// line_server — a complete line server: each line comes back with its length.
//
//   line_server [port] [io_uring|epoll]      printf 'hello\nworld\n' | nc -q1 127.0.0.1 7000
//
// docs/GUIDE.md quotes this file whole ("Buffered reading and writing").
// guide:begin line_server
#include <cstdio>
#include <cstdlib>
#include <string>

#include <duet/task.hpp>

using namespace std::chrono_literals;

duet::Task<void> session(duet::TcpStream conn) {
  duet::BufferedReader in(conn);   // each line a view into its buffer: no copy
  duet::BufferedWriter out(conn);  // replies coalesce: one send per batch
  for (;;) {
    auto line = co_await in.read_line(1024, 60s);  // without its "\n" or "\r\n"
    if (line.error() == std::errc::message_size) (void)co_await out.write("ERR line too long\n");
    if (!line) break;  // EOF, 60 s idle, too long, or an error
    if (!co_await out.write(std::to_string(line->size()) + " " + std::string(*line) + "\n")) co_return;
    const bool more = in.buffered().find('\n') != std::string_view::npos;  // another line pipelined
    if (!more && !co_await out.flush()) co_return;                        // else answer it first
  }
  (void)co_await out.flush();
}

duet::Task<void> serve(duet::TcpListener& listener) {
  duet::TaskScope scope;
  while (auto conn = co_await listener.accept()) scope.spawn(session(std::move(*conn)));
  co_await scope.join();  // accept failed (e.g. out of file descriptors): stop
}

int main(int argc, char** argv) {
  const auto backend = duet::parse_backend(argc > 2 ? argv[2] : "io_uring").value_or(duet::Backend::io_uring);
  duet::EventLoop loop(backend);
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(argc > 1 ? std::atoi(argv[1]) : 7000));
  std::printf("lines on port %u\n", listener.local_address().port());
  std::fflush(stdout);
  duet::run_until_complete(loop, serve(listener));
}
// guide:end
