// The code quoted by docs/GUIDE.md (stackless part). Every block between
// "// guide:begin NAME" and "// guide:end" appears verbatim in the guide, and
// check_guide.py (a meson test) fails if the two drift apart. The test cases at
// the bottom run the snippets on both backends.
#include <catch2/catch.hpp>

#include <algorithm>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

// guide:begin includes
#include <duet/task/tcp_listener.hpp>  // TcpListener: bind, listen, accept
#include <duet/task/tcp_stream.hpp>    // TcpStream: connect, recv, send, send_all, shutdown
#include <duet/task/task_scope.hpp>    // TaskScope: owns the connection tasks
#include <duet/task/run.hpp>           // run_until_complete(loop, task)
// guide:end
#include <duet/task/sleep.hpp>         // sleep_for, sleep_until
#include <duet/task/with_timeout.hpp>  // with_timeout(awaiter, duration)
#include <duet/task/when_all.hpp>

using namespace std::chrono_literals;

namespace guide {

// guide:begin echo
duet::Task<void> echo(duet::TcpStream conn) {
  char buf[16 * 1024];
  for (;;) {
    auto n = co_await conn.recv(buf);  // IoResult<std::size_t>
    if (!n) co_return;                 // EOF or an error: either way, we are done
    if (!co_await conn.send_all(std::span<const char>(buf, *n))) co_return;
  }
}  // conn's destructor closes the socket

duet::Task<void> serve(duet::TcpListener& listener, int connections) {
  duet::TaskScope scope;  // owns every connection task
  for (int i = 0; i < connections; ++i) {
    auto conn = co_await listener.accept();
    if (conn) scope.spawn(echo(std::move(*conn)));
  }
  co_await scope.join();  // wait for the connection tasks before the scope goes
}
// guide:end

// guide:begin main
int run_server(duet::Backend backend, std::uint16_t port) {
  duet::EventLoop loop(backend);  // create it on the thread that runs it
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", port).value());
  duet::run_until_complete(loop, serve(listener, 1));
  return 0;
}
// guide:end

// guide:begin errors
duet::Task<std::string> read_greeting(duet::TcpStream& conn) {
  char buf[256];
  duet::IoResult<std::size_t> n = co_await conn.recv(buf);
  if (n.eof()) co_return "peer closed before greeting";
  if (n.error() == std::errc::connection_reset) co_return "peer reset";
  if (!n) co_return "error: " + n.error().message();
  co_return std::string(buf, *n);  // *n >= 1 whenever n is ok
}
// guide:end

// guide:begin connect
duet::Task<std::string> ask(duet::EventLoop& loop, std::uint16_t port) {
  auto addr = duet::SocketAddress::parse("::1", port).value();  // or "127.0.0.1", "localhost"
  duet::IoResult<duet::TcpStream> conn = co_await duet::TcpStream::connect(loop, addr);
  if (!conn) co_return conn.error().message();  // e.g. "Connection refused"
  (void)co_await conn->send_all(std::string_view("hello\n"));
  (void)conn->shutdown();  // FIN after the data: the peer's recv sees EOF
  co_return co_await read_greeting(*conn);
}
// guide:end

// guide:begin pooled
// Counts lines until EOF, holding no buffer of its own while it waits.
duet::Task<std::size_t> count_lines(duet::TcpStream& conn) {
  std::size_t lines = 0;
  for (;;) {
    duet::IoResult<duet::RecvBuffer> in = co_await conn.recv_pooled();
    if (!in) co_return lines;  // EOF or an error, exactly as with recv
    lines += static_cast<std::size_t>(std::ranges::count(in->bytes(), '\n'));
  }  // `in` ends with each iteration: the buffer goes back to the loop
}
// guide:end

// guide:begin timeout
duet::Task<bool> wait_for_ping(duet::TcpStream& conn) {
  char buf[64];
  auto n = co_await duet::with_timeout(conn.recv(buf), 100ms);
  if (n.error() == std::errc::timed_out) {
    // The recv was cancelled in the kernel: no byte was lost, and
    // the stream is usable for the next recv.
    co_return false;
  }
  co_return n.ok();
}
// guide:end

// guide:begin stop
duet::Task<void> reader(duet::TcpStream& conn, std::stop_token stop) {
  char buf[64];
  for (;;) {
    auto n = co_await conn.recv(buf, stop);
    if (n.error() == std::errc::operation_canceled) co_return;  // stop requested
    if (!n) co_return;
  }
}

duet::Task<void> stop_after(duet::EventLoop& loop, std::stop_source& source, std::chrono::milliseconds d) {
  co_await duet::sleep_for(loop, d);
  source.request_stop();  // on the loop's thread: the pending recv completes at once
}
// guide:end

// guide:begin backend
duet::Backend pick_backend(std::string_view wanted) {
  duet::Backend backend = duet::parse_backend(wanted).value_or(duet::Backend::io_uring);
  if (backend == duet::Backend::io_uring) {
    try {
      duet::EventLoop probe(backend);  // throws std::system_error if no ring can be made
    } catch (const std::system_error& e) {
      std::fprintf(stderr, "io_uring unavailable (%s), using epoll\n", e.what());
      backend = duet::Backend::epoll;
    }
  }
  return backend;
}
// guide:end

}  // namespace guide

namespace {

duet::Task<std::string> echo_once(duet::EventLoop& loop) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("::1", 0).value());
  auto [unit, answer] = co_await duet::when_all(guide::serve(listener, 1),
                                                guide::ask(loop, listener.local_address().port()));
  (void)unit;
  co_return answer;
}

duet::Task<bool> timeout_then_stop(duet::EventLoop& loop) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  auto [server, client] = co_await duet::when_all(
      [](duet::TcpListener& l) -> duet::Task<duet::IoResult<duet::TcpStream>> { co_return co_await l.accept(); }(listener),
      [](duet::EventLoop& lp, duet::SocketAddress a) -> duet::Task<duet::IoResult<duet::TcpStream>> {
        co_return co_await duet::TcpStream::connect(lp, a);
      }(loop, listener.local_address()));
  const bool pinged = co_await guide::wait_for_ping(*server);
  std::stop_source source;
  co_await duet::when_all(guide::reader(*server, source.get_token()), guide::stop_after(loop, source, 20ms));
  co_return !pinged && client.ok();
}

duet::Task<std::size_t> lines_of(duet::EventLoop& loop, std::string text) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  auto [accepted, client] = co_await duet::when_all(
      [](duet::TcpListener& l) -> duet::Task<duet::IoResult<duet::TcpStream>> { co_return co_await l.accept(); }(listener),
      [](duet::EventLoop& lp, duet::SocketAddress a, std::string t) -> duet::Task<duet::IoResult<duet::TcpStream>> {
        auto c = co_await duet::TcpStream::connect(lp, a);
        if (c) {
          (void)co_await c->send_all(std::string_view(t));
          (void)c->shutdown();
        }
        co_return c;
      }(loop, listener.local_address(), std::move(text)));
  co_return co_await guide::count_lines(*accepted);
}

}  // namespace

TEST_CASE("the guide's line counter reads through lent buffers until EOF") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::EventLoop loop(backend, duet::LoopOptions{.recv_buffer_count = 1, .recv_buffer_size = 7});
  CHECK(duet::run_until_complete(loop, lines_of(loop, "one\ntwo\nthree\nfour\nfive\n")) == 5);
}

TEST_CASE("the guide's echo server answers the guide's client") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::EventLoop loop(guide::pick_backend(duet::backend_name(backend)));
  CHECK(duet::run_until_complete(loop, echo_once(loop)) == "hello\n");
}

TEST_CASE("the guide's timeout and stop snippets behave as the guide says") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::EventLoop loop(backend);
  CHECK(duet::run_until_complete(loop, timeout_then_stop(loop)));
}

TEST_CASE("the guide's main refuses a port in use with std::system_error") {
  duet::EventLoop loop(duet::Backend::epoll);
  auto taken = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  // SO_REUSEADDR does not allow two listeners on one port: bind throws.
  CHECK_THROWS_AS(guide::run_server(duet::Backend::epoll, taken.local_address().port()), std::system_error);
}
