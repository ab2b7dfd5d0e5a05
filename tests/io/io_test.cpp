// The stackless I/O API (TcpListener, TcpStream, sleep_for, with_timeout, stop
// tokens) over loopback. Every test runs on both backends.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/with_timeout.hpp"
#include "support/payload.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::EventLoop;
using duet::SocketAddress;
using duet::Task;
using duet::TcpListener;
using duet::TcpStream;

namespace {

struct Pair {
  TcpStream client;
  TcpStream server;
};

Task<Pair> connected_pair(EventLoop& loop, std::string_view host = "127.0.0.1") {
  auto listener = TcpListener::bind(loop, SocketAddress::parse(host, 0).value());
  auto [accepted, connected] =
      co_await duet::when_all([](TcpListener& l) -> Task<duet::IoResult<TcpStream>> { co_return co_await l.accept(); }(listener),
                              [](EventLoop& lp, SocketAddress a) -> Task<duet::IoResult<TcpStream>> {
                                co_return co_await TcpStream::connect(lp, a);
                              }(loop, listener.local_address()));
  REQUIRE(accepted.ok());
  REQUIRE(connected.ok());
  co_return Pair{std::move(*connected), std::move(*accepted)};
}

// Reads until `want` bytes arrived or the stream ends; returns what it got.
Task<std::string> recv_n(TcpStream& s, std::size_t want) {
  std::string got;
  std::vector<char> buf(64 * 1024);
  while (got.size() < want) {
    auto r = co_await s.recv(std::span(buf.data(), std::min(buf.size(), want - got.size())));
    if (!r) break;
    got.append(buf.data(), *r);
  }
  co_return got;
}

void small_buffers(const TcpStream& s) {
  const int size = 16 * 1024;  // far below 64 MiB, above the loopback MSS (smaller stalls TCP)
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

}  // namespace

TEST_CASE("accept, connect, send and recv over loopback on IPv4, IPv6 and localhost") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  const std::string host = GENERATE(std::string("127.0.0.1"), std::string("::1"), std::string("localhost"));
  INFO("backend " << duet::backend_name(backend) << ", host " << host);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp, std::string h) -> Task<std::string> {
    Pair p = co_await connected_pair(lp, h);
    auto sent = co_await p.client.send(std::string_view("hello"));
    REQUIRE(sent.ok());
    CHECK(*sent == 5);
    co_return co_await recv_n(p.server, 5);
  };
  CHECK(duet::run_until_complete(loop, body(loop, host)) == "hello");
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a 64 MiB payload crosses small socket buffers with partial sends") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    Pair p = co_await connected_pair(lp);
    small_buffers(p.client);
    small_buffers(p.server);
    const std::string payload = duet::test::patterned_payload(64u << 20);
    auto writer = [](TcpStream& s, const std::string& data) -> Task<std::size_t> {
      const std::size_t first = (co_await s.send(data)).value();  // one send: partial
      CHECK(first < data.size());
      auto rest = co_await s.send_all(std::string_view(data).substr(first));
      (void)s.shutdown();
      co_return first + rest.value();
    };
    auto [sent, got] = co_await duet::when_all(writer(p.client, payload), recv_n(p.server, payload.size() + 1));
    CHECK(sent == payload.size());
    co_return got == payload;
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
}

TEST_CASE("recv reports EOF explicitly after the peer shuts down") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<duet::IoResult<std::size_t>> {
    Pair p = co_await connected_pair(lp);
    (void)p.client.shutdown();
    char buf[16];
    co_return co_await p.server.recv(buf);
  };
  auto r = duet::run_until_complete(loop, body(loop));
  CHECK(r.eof());
  CHECK_FALSE(r.ok());
}

TEST_CASE("a short recv of the last data is followed by EOF, not a hang") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    Pair p = co_await connected_pair(lp);
    char buf[64];
    auto early = co_await duet::with_timeout(p.server.recv(buf), 5ms);  // parks and registers the fd
    CHECK(early.error() == std::errc::timed_out);
    (void)co_await p.client.send_all(std::string_view("abc"));
    (void)p.client.shutdown();
    auto first = co_await duet::with_timeout(p.server.recv(buf), 2s);  // data and FIN in one edge
    auto second = co_await duet::with_timeout(p.server.recv(buf), 2s);
    co_return first.ok() && *first == 3 && second.eof();
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
}

TEST_CASE("recv reports a reset when the peer aborts the connection") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<std::error_code> {
    Pair p = co_await connected_pair(lp);
    const linger abort_on_close{1, 0};
    ::setsockopt(p.client.native_handle(), SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    p.client.close();
    char buf[16];
    co_return (co_await p.server.recv(buf)).error();
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == std::errc::connection_reset);
}

TEST_CASE("connect to a closed port is refused") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketAddress addr;
  {
    auto listener = TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
    addr = listener.local_address();
  }
  auto body = [](EventLoop& lp, SocketAddress a) -> Task<std::error_code> {
    co_return (co_await TcpStream::connect(lp, a)).error();
  };
  CHECK(duet::run_until_complete(loop, body(loop, addr)) == std::errc::connection_refused);
}

TEST_CASE("a timeout fires, cancels the op and leaves the data for the next recv") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<std::string> {
    Pair p = co_await connected_pair(lp);
    char buf[16];
    const auto start = std::chrono::steady_clock::now();
    auto r = co_await duet::with_timeout(p.server.recv(buf), 30ms);
    CHECK(r.error() == std::errc::timed_out);
    CHECK(std::chrono::steady_clock::now() - start >= 29ms);
    CHECK(lp.in_flight() == 0);
    auto sent = co_await p.client.send_all(std::string_view("after"));  // never co_await inside a Catch macro:
    REQUIRE(sent.ok());  // GCC 12 also runs the await hidden in its never-taken "&&" branch
    co_return co_await recv_n(p.server, 5);
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == "after");
}

TEST_CASE("a timeout bounds a whole send_all to a peer that never reads") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<std::error_code> {
    Pair p = co_await connected_pair(lp);
    small_buffers(p.client);
    const std::string payload(16u << 20, 'z');
    auto r = co_await duet::with_timeout(p.client.send_all(payload), 50ms);
    co_return r.error();
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == std::errc::timed_out);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a stop token cancels a pending recv and a sleep") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<bool> {
    Pair p = co_await connected_pair(lp);
    std::stop_source stop;
    char buf[16];
    auto reader = [](TcpStream& s, std::span<char> b, std::stop_token t) -> Task<std::error_code> {
      co_return (co_await s.recv(b, t)).error();
    };
    auto sleeper = [](EventLoop& l, std::stop_token t) -> Task<bool> { co_return co_await duet::sleep_for(l, 10s, t); };
    auto stopper = [](EventLoop& l, std::stop_source& s) -> Task<void> {
      co_await duet::sleep_for(l, 20ms);
      s.request_stop();
    };
    auto [err, slept, none] =
        co_await duet::when_all(reader(p.server, buf, stop.get_token()), sleeper(lp, stop.get_token()), stopper(lp, stop));
    (void)none;
    // A token stopped before the call fails at once, without reaching the kernel.
    auto again = co_await p.server.recv(buf, stop.get_token());
    co_return err == std::errc::operation_canceled && !slept && again.error() == std::errc::operation_canceled;
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
}

TEST_CASE("destroying a task suspended in recv cancels the op before its buffer dies") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  Pair p = duet::run_until_complete(loop, connected_pair(loop));
  auto reader = [](TcpStream& s) -> Task<void> {
    char buf[4096];  // lives in the frame: the kernel must be done with it before the frame goes
    (void)co_await s.recv(buf);
  };
  {
    Task<void> t = reader(p.server);
    t.handle().resume();  // runs to the recv and suspends there
    loop.run_once();      // the op is now really in the kernel
    CHECK(loop.in_flight() == 1);
  }  // destroys the suspended frame
  CHECK(loop.in_flight() == 0);
  auto body = [](TcpStream& c, TcpStream& s) -> Task<std::string> {
    auto sent = co_await c.send_all(std::string_view("still here"));
    REQUIRE(sent.ok());
    co_return co_await recv_n(s, 10);
  };
  CHECK(duet::run_until_complete(loop, body(p.client, p.server)) == "still here");
}

TEST_CASE("recv_pooled carries a 64 MiB payload through two lent buffers, then reports EOF") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend, duet::LoopOptions{.recv_buffer_count = 2});
  auto body = [](EventLoop& lp) -> Task<bool> {
    Pair p = co_await connected_pair(lp);
    small_buffers(p.server);
    const std::string payload = duet::test::patterned_payload(64u << 20);
    auto writer = [](TcpStream& s, const std::string& data) -> Task<void> {
      auto sent = co_await s.send_all(data);
      CHECK(sent.ok());
      (void)s.shutdown();
    };
    auto reader = [](TcpStream& s) -> Task<std::string> {
      std::string got;
      for (;;) {
        auto in = co_await s.recv_pooled();
        if (!in) {
          CHECK(in.eof());
          break;
        }
        CHECK(in->size() <= 16 * 1024);
        got.append(in->bytes());
      }
      co_return got;
    };
    auto [done, got] = co_await duet::when_all(writer(p.client, payload), reader(p.server));
    (void)done;
    CHECK(got.size() == payload.size());
    co_return got == payload;
  };
  CHECK(duet::run_until_complete(loop, body(loop)));
}

TEST_CASE("destroying a task suspended in recv_pooled leaves no buffer lent") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend, duet::LoopOptions{.recv_buffer_count = 1});
  Pair p = duet::run_until_complete(loop, connected_pair(loop));
  auto reader = [](TcpStream& s) -> Task<void> { (void)co_await s.recv_pooled(); };
  {
    Task<void> t = reader(p.server);
    t.handle().resume();  // suspends in recv_pooled
    loop.run_once();
    REQUIRE(::send(p.client.native_handle(), "lost", 4, 0) == 4);  // io_uring: the recv may take it while abandoned
  }
  CHECK(loop.in_flight() == 0);
  auto body = [](TcpStream& c, TcpStream& s) -> Task<std::string> {
    auto sent = co_await c.send_all(std::string_view("still here"));
    REQUIRE(sent.ok());
    std::string got;
    while (got.size() < 10 && got.find("still here") == std::string::npos) {
      auto in = co_await duet::with_timeout(s.recv_pooled(), 2s);  // the only buffer must be free
      if (!in) break;
      got.append(in->bytes());
    }
    co_return got;
  };
  const std::string got = duet::run_until_complete(loop, body(p.client, p.server));
  CHECK(got.ends_with("still here"));
}

TEST_CASE("5000 concurrent connections exchange messages") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  constexpr int count = 5000;
  auto body = [](EventLoop& lp) -> Task<int> {
    auto listener = TcpListener::bind(lp, SocketAddress::parse("127.0.0.1", 0).value(), {.backlog = 8192});
    duet::TaskScope scope;
    int echoed = 0;
    auto server = [](TcpListener& l, duet::TaskScope& sc) -> Task<void> {
      for (int i = 0; i < count; ++i) {
        auto conn = co_await l.accept();
        REQUIRE(conn.ok());
        sc.spawn([](TcpStream s) -> Task<void> {
          char buf[64];
          for (;;) {
            auto n = co_await s.recv(buf);
            if (!n) co_return;
            (void)co_await s.send_all(std::span<const char>(buf, *n));
          }
        }(std::move(*conn)));
      }
    };
    auto client = [](EventLoop& l, SocketAddress a, int id, int& ok) -> Task<void> {
      auto conn = co_await TcpStream::connect(l, a);
      REQUIRE(conn.ok());
      const std::string msg = "message " + std::to_string(id);
      (void)co_await conn->send_all(msg);
      if (co_await recv_n(*conn, msg.size()) == msg) ++ok;
    };
    scope.spawn(server(listener, scope));
    for (int i = 0; i < count; ++i) scope.spawn(client(lp, listener.local_address(), i, echoed));
    co_await scope.join();
    co_return echoed;
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == count);
}

TEST_CASE("accept reports EMFILE at the open-file limit without spinning") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto listener = TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  auto body = [](EventLoop& lp, TcpListener& l) -> Task<bool> {
    auto conn = co_await TcpStream::connect(lp, l.local_address());  // queued in the backlog
    REQUIRE(conn.ok());
    rlimit saved{};
    ::getrlimit(RLIMIT_NOFILE, &saved);
    const int lowest_free = ::dup(0);
    ::close(lowest_free);
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(lowest_free);  // no new fd can be made now
    ::setrlimit(RLIMIT_NOFILE, &tight);
    auto first = co_await duet::with_timeout(l.accept(), 2s);
    ::setrlimit(RLIMIT_NOFILE, &saved);
    auto second = co_await duet::with_timeout(l.accept(), 2s);  // the same connection, now accepted
    CHECK(first.error() == std::errc::too_many_files_open);
    CHECK(second.ok());
    co_return first.error() == std::errc::too_many_files_open && second.ok();
  };
  const std::clock_t cpu_before = std::clock();
  CHECK(duet::run_until_complete(loop, body(loop, listener)));
  CHECK(std::clock() - cpu_before < CLOCKS_PER_SEC / 2);  // no busy retry loop
}

TEST_CASE("sleep_for timers fire in deadline order") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  auto body = [](EventLoop& lp) -> Task<std::vector<int>> {
    std::vector<int> order;
    auto timer = [](EventLoop& l, int ms, std::vector<int>& out) -> Task<void> {
      co_await duet::sleep_for(l, std::chrono::milliseconds(ms));
      out.push_back(ms);
    };
    co_await duet::when_all(timer(lp, 30, order), timer(lp, 10, order), timer(lp, 40, order), timer(lp, 20, order));
    co_return order;
  };
  CHECK(duet::run_until_complete(loop, body(loop)) == std::vector<int>{10, 20, 30, 40});
}
