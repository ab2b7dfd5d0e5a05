// The code quoted by the stackful part of docs/GUIDE.md. Every block between
// "// guide:begin NAME" and "// guide:end" appears verbatim in the guide (in
// ```c++ fences), and check_guide_stackful.py (a meson test) fails if the two
// drift apart. The test cases at the bottom run the snippets on both backends.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

// guide:begin includes
#include <duet/stackful/scheduler.hpp>     // Scheduler: one per thread, owns the loop
#include <duet/stackful/this_fiber.hpp>    // spawn, yield, set_name
#include <duet/stackful/sleep.hpp>         // sleep_for, sleep_until
#include <duet/stackful/tcp_listener.hpp>  // TcpListener: bind, listen, accept
#include <duet/stackful/tcp_stream.hpp>    // TcpStream: connect, recv, send, send_all, shutdown
// guide:end

using namespace std::chrono_literals;

namespace guide {

// guide:begin echo
void echo(duet::fiber::TcpStream conn) {
  char buf[16 * 1024];  // on the fiber's stack (128 KiB by default)
  for (;;) {
    auto n = conn.recv(buf);  // blocks this fiber only; IoResult<std::size_t>
    if (!n) return;           // EOF or an error: either way, we are done
    if (!conn.send_all(std::span<const char>(buf, *n))) return;
  }
}  // conn's destructor closes the socket

void serve(duet::fiber::TcpListener& listener, int connections) {
  std::vector<duet::fiber::Fiber<void>> handlers;
  for (int i = 0; i < connections; ++i) {
    auto conn = listener.accept();
    if (conn) handlers.push_back(duet::fiber::spawn(echo, std::move(*conn)));
  }
  for (auto& handler : handlers) handler.join();  // or .detach(): the scheduler owns it then
}
// guide:end

// guide:begin main
int run_server(duet::Backend backend, std::uint16_t port) {
  duet::fiber::Scheduler scheduler({.backend = backend});  // on the thread that runs it
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", port).value());
  scheduler.spawn(serve, std::ref(listener), 1).join();  // join() runs the scheduler until done
  return 0;
}
// guide:end

// guide:begin fibers
int fibers_demo() {
  duet::fiber::Scheduler scheduler;
  auto worker = scheduler.spawn([](int x) {
    duet::fiber::set_name("worker");  // named in a stack-overflow report
    duet::fiber::sleep_for(10ms);     // other fibers run meanwhile
    return 2 * x;
  }, 21);
  auto failing = scheduler.spawn([] { throw std::runtime_error("boom"); });
  scheduler.run();  // until every fiber has finished
  try {
    failing.join();  // rethrows "boom"
  } catch (const std::runtime_error&) {
  }
  return worker.join();  // 42
}
// guide:end

// guide:begin timeout
std::string ask(std::uint16_t port, std::stop_token stop) {
  auto addr = duet::SocketAddress::parse("127.0.0.1", port).value();
  auto conn = duet::fiber::TcpStream::connect(addr, 1s, stop);  // timeout and stop token
  if (!conn) return conn.error().message();                      // e.g. "Connection refused"
  (void)conn->send_all(std::string_view("hello\n"));
  char buf[64];
  auto n = conn->recv(buf, 100ms);  // std::errc::timed_out when nothing comes
  if (n.error() == std::errc::timed_out) return "no answer";
  if (!n) return n.error().message();
  return std::string(buf, *n);
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber echo server answers a client") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  duet::fiber::Scheduler scheduler({.backend = backend});
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 0).value());
  const std::uint16_t port = listener.local_address().port();
  auto server = scheduler.spawn(guide::serve, std::ref(listener), 1);
  auto client = scheduler.spawn(guide::ask, port, std::stop_token{});
  CHECK(client.join() == "hello\n");
  server.join();
}

TEST_CASE("the guide's fiber demo returns 42 and its ask reports a refused connection") {
  CHECK(guide::fibers_demo() == 42);
  duet::fiber::Scheduler scheduler;
  std::uint16_t port = 0;
  {
    auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 0).value());
    port = listener.local_address().port();
  }
  CHECK(scheduler.spawn(guide::ask, port, std::stop_token{}).join() == "Connection refused");
}

TEST_CASE("the guide's run_server serves one connection") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  // run_server owns its scheduler, so the client runs on a second thread with its own.
  std::uint16_t port = 0;
  {
    duet::fiber::Scheduler probe;
    auto l = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 0).value());
    port = l.local_address().port();
  }
  std::string answer;
  std::thread client([&] {
    duet::fiber::Scheduler scheduler({.backend = backend});
    for (int attempt = 0; attempt < 100 && answer != "hello\n"; ++attempt) {
      answer = scheduler.spawn(guide::ask, port, std::stop_token{}).join();
      if (answer != "hello\n") scheduler.spawn([] { duet::fiber::sleep_for(10ms); }).join();
    }
  });
  CHECK(guide::run_server(backend, port) == 0);
  client.join();
  CHECK(answer == "hello\n");
}
