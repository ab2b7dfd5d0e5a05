// BufferedReader and BufferedWriter over TLS, both voices, both backends: the
// streams whose calls take their own timeout (task/buffered.hpp uses it
// instead of with_timeout), lines split across records, close_notify as EOF.
#include <chrono>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "duet/stackful/buffered.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/tls_stream.hpp"
#include "duet/task/buffered.hpp"
#include "duet/task/run.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tls_stream.hpp"
#include "duet/task/when_all.hpp"
#include "support/on_fibers.hpp"
#include "tls/tls_certs.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::IoResult;
using duet::SocketAddress;
using duet::Task;
using duet::TlsContext;
using duet::test::tls_certs;

namespace {

constexpr int line_count = 50;

std::string expected_lines() {
  std::string all;
  for (int i = 0; i < line_count; ++i) all += "line " + std::to_string(i) + ",";
  return all;
}

Task<std::pair<duet::TcpStream, duet::TcpStream>> tcp_pair(duet::EventLoop& loop) {
  auto listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  auto accepting = [](duet::TcpListener& l) -> Task<IoResult<duet::TcpStream>> { co_return co_await l.accept(); };
  auto connecting = [](duet::EventLoop& lp, SocketAddress a) -> Task<IoResult<duet::TcpStream>> {
    co_return co_await duet::TcpStream::connect(lp, a);
  };
  auto [accepted, connected] = co_await duet::when_all(accepting(listener), connecting(loop, listener.local_address()));
  REQUIRE(accepted.ok());
  REQUIRE(connected.ok());
  co_return std::pair{std::move(*connected), std::move(*accepted)};
}

Task<IoResult<void>> handshake(duet::TlsStream& s) { co_return co_await s.handshake(5s); }

// The client writes the lines through a small writer (many records), the
// server reads them through a small reader, then a timeout, then close_notify.
Task<std::string> lines_over_tls(duet::EventLoop& loop, const TlsContext& server_ctx, const TlsContext& client_ctx) {
  auto [tcp_client, tcp_server] = co_await tcp_pair(loop);
  duet::TlsStream client(std::move(tcp_client), client_ctx, "localhost");
  duet::TlsStream server(std::move(tcp_server), server_ctx);
  auto [c, s] = co_await duet::when_all(handshake(client), handshake(server));
  REQUIRE(c.ok());
  REQUIRE(s.ok());
  duet::BufferedWriter out(client, 64);
  for (int i = 0; i < line_count; ++i) {
    auto written = co_await out.write("line " + std::to_string(i) + "\r\n", 5s);
    REQUIRE(written);
  }
  auto flushed = co_await out.flush(5s);
  REQUIRE(flushed);
  duet::BufferedReader in(server, 16);
  std::string got;
  for (int i = 0; i < line_count; ++i) {
    auto line = co_await in.read_line(32, 5s);
    if (!line) co_return "error: " + line.error().message();
    got += std::string(*line) + ",";
  }
  auto idle = co_await in.read_line(32, 20ms);
  CHECK(idle.error() == std::errc::timed_out);
  auto closed = co_await client.shutdown(5s);
  CHECK(closed);
  auto end = co_await in.read_line(32, 5s);
  CHECK(end.eof());
  CHECK(in.buffered().empty());
  co_return got;
}

TEST_CASE("a BufferedReader and BufferedWriter carry lines over a TlsStream, with a timeout and close_notify as EOF") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::EventLoop loop(backend);
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  CHECK(duet::run_until_complete(loop, lines_over_tls(loop, server_ctx, client_ctx)) == expected_lines());
  CHECK(loop.in_flight() == 0);
}

std::string fiber_lines_over_tls(const TlsContext& server_ctx, const TlsContext& client_ctx) {
  namespace fiber = duet::fiber;
  auto listener = fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
  auto acceptor = fiber::spawn([&listener] { return listener.accept(); });
  auto connected = fiber::TcpStream::connect(listener.local_address());
  auto accepted = acceptor.join();
  REQUIRE(connected.ok());
  REQUIRE(accepted.ok());
  fiber::TlsStream client(std::move(*connected), client_ctx, "localhost");
  fiber::TlsStream server(std::move(*accepted), server_ctx);
  auto server_side = fiber::spawn([&server] { return server.handshake(5s); });
  REQUIRE(client.handshake(5s));
  REQUIRE(server_side.join());
  fiber::BufferedWriter out(client, 64);
  for (int i = 0; i < line_count; ++i) REQUIRE(out.write("line " + std::to_string(i) + "\r\n", 5s));
  REQUIRE(out.flush(5s));
  fiber::BufferedReader in(server, 16);
  std::string got;
  for (int i = 0; i < line_count; ++i) {
    auto line = in.read_line(32, 5s);
    if (!line) return "error: " + line.error().message();
    got += std::string(*line) + ",";
  }
  CHECK(in.read_line(32, 20ms).error() == std::errc::timed_out);
  CHECK(client.shutdown(5s));
  CHECK(in.read_line(32, 5s).eof());
  return got;
}

TEST_CASE("fibers: a BufferedReader and BufferedWriter carry lines over a TlsStream") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  TlsContext server_ctx(tls_certs().server());
  TlsContext client_ctx(tls_certs().client());
  CHECK(duet::test::on_fibers(backend, [&] { return fiber_lines_over_tls(server_ctx, client_ctx); }, 256 * 1024) ==
        expected_lines());
}

}  // namespace
