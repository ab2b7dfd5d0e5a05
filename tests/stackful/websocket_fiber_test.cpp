// duet::fiber::WebSocket (stackful/websocket.hpp) on both backends: the same
// cases as the stackless voice's test (tests/task/websocket_task_test.cpp),
// as blocking calls on fibers: a duet client and server (echo, deflate,
// closes with codes, 1009) and hand-written peers (fragments, a ping, a bad
// upgrade, a refusing server, frames sent with the head).
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "duet/http/request_parser.hpp"
#include "duet/http/websocket_handshake.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/websocket.hpp"
#include "support/alarm_guard.hpp"
#include "support/ws_raw.hpp"

namespace {

using duet::Backend;
using duet::IoResult;
using duet::WsOptions;
using duet::fiber::TcpStream;
using namespace std::chrono_literals;

struct Pair {
  TcpStream server, client;
  explicit Pair(duet::EventLoop& loop) {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
    server = TcpStream(loop, fds[0]);
    client = TcpStream(loop, fds[1]);
  }
};

void raw_write(const TcpStream& s, std::string_view bytes) {
  REQUIRE(::write(s.native_handle(), bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
}

// Everything the raw peer received until EOF, read on a fiber.
std::string raw_read_all(TcpStream& s) {
  std::string got;
  char buf[4096];
  for (auto n = s.recv(buf, 5s); n; n = s.recv(buf, 5s)) got.append(buf, *n);
  return got;
}

// Runs body(pair) on a fiber of a fresh scheduler on each backend.
template <typename Body>
void on_each_backend(Body body) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const duet::test::AlarmGuard alarm;
  duet::fiber::Scheduler scheduler({.backend = backend, .stack_size = 128 * 1024});
  Pair pair(scheduler.loop());
  scheduler.spawn([&] { body(pair); }).join();
  scheduler.run();
  CHECK(scheduler.loop().in_flight() == 0);
}

// Echoes every message until the connection ends; gives the close code (after checking it ended by EOF).
std::uint16_t echo_server(TcpStream conn, WsOptions options) {
  auto ws = duet::fiber::ws_accept(std::move(conn), options);
  REQUIRE(ws);
  for (auto m = ws->receive(); m; m = ws->receive()) {
    auto sent = m->is_text() ? ws->send_text(m->data()) : ws->send_binary(m->payload);
    REQUIRE(sent);
  }
  return ws->close_code();
}

void echo_round_trip(Pair& p, const WsOptions& options, const std::string& text, const std::string& binary) {
  auto server = duet::fiber::spawn(echo_server, std::move(p.server), options);
  auto ws = duet::fiber::ws_connect(std::move(p.client), "127.0.0.1", "/echo", options);
  REQUIRE(ws);
  CHECK(ws->deflate() == options.session.deflate.enabled);
  REQUIRE(ws->send_text(text));
  auto t = ws->receive();
  REQUIRE(t);
  CHECK(t->is_text());
  CHECK(t->data() == text);
  REQUIRE(ws->send_binary(binary));
  auto b = ws->receive();
  REQUIRE(b);
  CHECK(!b->is_text());
  CHECK(b->data() == binary);
  CHECK(ws->close(1000, "bye"));
  CHECK(ws->state() == duet::WsState::closed);
  CHECK(server.join() == 1000);
}

TEST_CASE("fibers: a duet client and server echo text as text and binary as binary, then close with 1000") {
  on_each_backend([](Pair& p) {
    std::string binary("\0\1\2\xff", 4);
    binary += std::string(200'000, 'b');
    echo_round_trip(p, {}, "hello", binary);
  });
}

TEST_CASE("fibers: permessage-deflate is negotiated both ways and compressed messages round-trip") {
  on_each_backend([](Pair& p) {
    WsOptions options;
    options.session.deflate.enabled = true;
    std::string text;
    for (int i = 0; i < 500; ++i) text += "compressible line " + std::to_string(i % 7) + "\n";
    echo_round_trip(p, options, text, std::string(5000, 'z'));
  });
}

void close_from_server(TcpStream conn) {
  auto ws = duet::fiber::ws_accept(std::move(conn));
  REQUIRE(ws);
  CHECK(ws->close(4001, "done"));
  CHECK(ws->close_code() == 4001);
  CHECK(!ws->stream().is_open());
}

TEST_CASE("fibers: a close the server begins reaches the client with its code and reason, and is echoed") {
  on_each_backend([](Pair& p) {
    auto server = duet::fiber::spawn(close_from_server, std::move(p.server));
    auto ws = duet::fiber::ws_connect(std::move(p.client), "127.0.0.1", "/");
    REQUIRE(ws);
    CHECK(ws->receive().eof());
    CHECK(ws->close_code() == 4001);
    CHECK(ws->close_reason() == "done");
    CHECK(ws->receive().eof());
    CHECK(ws->send_text("late").error() == std::errc::not_connected);
    server.join();
  });
}

void refuse_big(TcpStream conn) {
  WsOptions options;
  options.session.max_message_size = 1024;
  auto ws = duet::fiber::ws_accept(std::move(conn), options);
  REQUIRE(ws);
  CHECK(ws->receive().error() == std::errc::message_size);
  CHECK(ws->close_code() == 1009);
}

TEST_CASE("fibers: a message over max_message_size fails the connection with 1009 on both ends") {
  on_each_backend([](Pair& p) {
    auto server = duet::fiber::spawn(refuse_big, std::move(p.server));
    auto ws = duet::fiber::ws_connect(std::move(p.client), "127.0.0.1", "/");
    REQUIRE(ws);
    REQUIRE(ws->send_binary(std::string(2000, 'x')));
    CHECK(ws->receive().eof());
    CHECK(ws->close_code() == 1009);
    server.join();
  });
}

TEST_CASE("fibers: a raw client's fragmented message arrives whole and its ping gets the automatic pong") {
  on_each_backend([](Pair& p) {
    using duet::test::ws_client_frame;
    raw_write(p.client, duet::test::ws_upgrade_request() + ws_client_frame(0x01, "Hel") +
                            ws_client_frame(0x89, "are you there") + ws_client_frame(0x80, "lo") +
                            ws_client_frame(0x88, "\x03\xe8"));
    auto ws = duet::fiber::ws_accept(std::move(p.server));
    REQUIRE(ws);
    auto m = ws->receive();
    REQUIRE(m);
    CHECK(m->is_text());
    CHECK(m->data() == "Hello");
    CHECK(ws->receive().eof());
    CHECK(ws->close_code() == 1000);
    const std::string got = raw_read_all(p.client);
    CHECK(got.starts_with("HTTP/1.1 101 Switching Protocols\r\n"));
    CHECK(got.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") != std::string::npos);
    CHECK(got.ends_with(duet::test::ws_server_frame(0x8a, "are you there") +
                        duet::test::ws_server_frame(0x88, "\x03\xe8")));
  });
}

TEST_CASE("fibers: a bad upgrade is answered 400 (426 for another version) and the connection closed") {
  const bool old_version = GENERATE(false, true);
  on_each_backend([old_version](Pair& p) {
    raw_write(p.client, old_version ? duet::test::ws_upgrade_request("8")
                                    : std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    auto ws = duet::fiber::ws_accept(std::move(p.server));
    CHECK(ws.error() == std::errc::protocol_error);
    const std::string got = raw_read_all(p.client);
    CHECK(got.starts_with(old_version ? "HTTP/1.1 426 " : "HTTP/1.1 400 Bad Request\r\n"));
    if (old_version) CHECK(got.find("Sec-WebSocket-Version: 13\r\n") != std::string::npos);
  });
}

TEST_CASE("fibers: the upgrade is bounded: a silent client times out, a head past max_head_bytes gets 431") {
  const bool silent = GENERATE(true, false);
  on_each_backend([silent](Pair& p) {
    WsOptions options;
    options.handshake_timeout = 30ms;
    options.max_head_bytes = 1024;
    if (!silent) raw_write(p.client, duet::test::ws_upgrade_request("13", "X-Pad: " + std::string(2000, 'p') + "\r\n"));
    auto ws = duet::fiber::ws_accept(std::move(p.server), options);
    CHECK(ws.error() == (silent ? std::errc::timed_out : std::errc::protocol_error));
    CHECK(raw_read_all(p.client).starts_with(silent ? "" : "HTTP/1.1 431 "));
  });
}

TEST_CASE("fibers: ws_accept over a head parsed by the caller serves the frames that came with it") {
  on_each_backend([](Pair& p) {
    const std::string received = duet::test::ws_upgrade_request() + duet::test::ws_client_frame(0x82, "first");
    duet::http::RequestParser parser;
    REQUIRE(parser.parse(received) == duet::http::ParseEvent::head);
    const std::string_view leftover = std::string_view(received).substr(parser.consumed());
    auto ws = duet::fiber::ws_accept(std::move(p.server), parser.head(), leftover);
    REQUIRE(ws);
    auto m = ws->receive();
    REQUIRE(m);
    CHECK(m->data() == "first");
    CHECK(ws->receive(20ms).error() == std::errc::timed_out);  // the connection stays usable
    raw_write(p.client, duet::test::ws_client_frame(0x81, "second"));
    auto again = ws->receive(5s);
    REQUIRE(again);
    CHECK(again->data() == "second");
  });
}

TEST_CASE("fibers: a client refuses an answer that is not a valid 101 and closes") {
  const bool malformed = GENERATE(false, true);
  on_each_backend([malformed](Pair& p) {
    raw_write(p.server, malformed ? "HTTP/1.1 101\r\n\r\n" : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    auto ws = duet::fiber::ws_connect(std::move(p.client), "127.0.0.1", "/");
    CHECK(ws.error() == std::errc::protocol_error);
    CHECK(raw_read_all(p.server).starts_with("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  });
}

constexpr std::size_t pong_and_close_size = (2 + 4 + 4) + (2 + 4 + 2);

// A hand-written server: reads the upgrade, answers 101 for its key, then
// pings, says "hi" and closes (4000); gives what the client sent after the request.
std::string raw_server(TcpStream& conn) {
  std::string got;
  char buf[4096];
  while (got.find("\r\n\r\n") == std::string::npos) {
    auto n = conn.recv(buf, 5s);
    REQUIRE(n);
    got.append(buf, *n);
  }
  const auto key_at = got.find("Sec-WebSocket-Key: ") + 19;
  const auto accept = duet::ws_accept_key(std::string_view(got).substr(key_at, 24));
  const std::string answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                             "Sec-WebSocket-Accept: " + std::string(accept.view()) + "\r\n\r\n" +
                             duet::test::ws_server_frame(0x89, "beat") + duet::test::ws_server_frame(0x81, "hi") +
                             duet::test::ws_server_frame(0x88, "\x0f\xa0");
  REQUIRE(conn.send_all(answer));
  got.erase(0, got.find("\r\n\r\n") + 4);
  while (got.size() < pong_and_close_size) {  // then we close: the client waits for that
    auto n = conn.recv(buf, 5s);
    if (!n) break;
    got.append(buf, *n);
  }
  conn.close();
  return got;
}

TEST_CASE("fibers: a duet client answers a server's ping with its pong and echoes the server's close") {
  on_each_backend([](Pair& p) {
    const auto start = std::chrono::steady_clock::now();
    auto server = duet::fiber::spawn([&p] { return raw_server(p.server); });
    auto ws = duet::fiber::ws_connect(std::move(p.client), "127.0.0.1", "/");
    REQUIRE(ws);
    auto m = ws->receive();
    REQUIRE(m);
    CHECK(m->data() == "hi");
    CHECK(ws->receive().eof());
    CHECK(ws->close_code() == 4000);
    CHECK(!ws->stream().is_open());
    const std::string got = server.join();
    REQUIRE(got.size() == pong_and_close_size);
    CHECK(static_cast<unsigned char>(got[0]) == 0x8a);
    CHECK(static_cast<unsigned char>(got[1]) == 0x84);
    CHECK(static_cast<unsigned char>(got[10]) == 0x88);
    CHECK(static_cast<unsigned char>(got[11]) == 0x82);
    CHECK(std::chrono::steady_clock::now() - start < 2s);
  });
}

}  // namespace
