// duet::WebSocket (task/websocket.hpp) on both backends: a duet client and a
// duet server talking over a socket pair (echo, deflate, closes with codes,
// 1009), and hand-written peers for what duet would not send (fragments, a
// ping, a bad upgrade, a refusing server, frames sent with the head).
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>
#include <tuple>

#include "duet/http/request_parser.hpp"
#include "duet/http/websocket_handshake.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/websocket.hpp"
#include "duet/task/when_all.hpp"
#include "support/alarm_guard.hpp"
#include "support/ws_raw.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::IoResult;
using duet::Task;
using duet::TcpStream;
using duet::WsOptions;
using namespace std::chrono_literals;
using Ws = duet::WebSocket<TcpStream>;

struct Pair {
  TcpStream server, client;
  explicit Pair(EventLoop& loop) {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
    server = TcpStream(loop, fds[0]);
    client = TcpStream(loop, fds[1]);
  }
};

// Writes to a raw peer's socket, which the kernel buffers.
void raw_write(const TcpStream& s, std::string_view bytes) {
  REQUIRE(::write(s.native_handle(), bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
}

// Everything the raw peer's socket received until EOF (the other side closed).
std::string raw_read_all(const TcpStream& s) {
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::recv(s.native_handle(), buf, sizeof buf, 0)) > 0;) got.append(buf, n);
  return got;
}

template <typename Body>
void on_each_backend(Body body) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  const duet::test::AlarmGuard alarm;
  EventLoop loop(backend);
  Pair pair(loop);
  duet::run_until_complete(loop, body(pair));
  CHECK(loop.in_flight() == 0);
}

// Echoes every message until the connection ends; gives how it ended and the close code.
Task<std::tuple<std::error_code, std::uint16_t>> echo_server(TcpStream conn, WsOptions options) {
  auto ws = co_await duet::ws_accept(std::move(conn), options);
  REQUIRE(ws);
  for (;;) {
    auto m = co_await ws->receive();
    if (!m) co_return std::tuple{m.error(), ws->close_code()};
    IoResult<void> sent;
    if (m->is_text()) sent = co_await ws->send_text(m->data());
    else sent = co_await ws->send_binary(m->payload);
    REQUIRE(sent);
  }
}

// Sends each message, checks its echo, then closes with 1000 "bye".
Task<bool> echo_client(TcpStream conn, WsOptions options, std::string text, std::string binary) {
  auto ws = co_await duet::ws_connect(std::move(conn), "127.0.0.1", "/echo", options);
  REQUIRE(ws);
  CHECK(ws->deflate() == options.session.deflate.enabled);
  auto sent_text = co_await ws->send_text(text);  // never co_await inside REQUIRE: GCC 12 runs it again
  REQUIRE(sent_text);
  auto t = co_await ws->receive();
  REQUIRE(t);
  CHECK(t->is_text());
  CHECK(t->data() == text);
  auto sent_binary = co_await ws->send_binary(binary);
  REQUIRE(sent_binary);
  auto b = co_await ws->receive();
  REQUIRE(b);
  CHECK(!b->is_text());
  CHECK(b->data() == binary);
  auto closed = co_await ws->close(1000, "bye");
  CHECK(closed);
  CHECK(ws->state() == duet::WsState::closed);
  co_return true;
}

Task<void> echo_round_trip(Pair& p, WsOptions options, std::string text, std::string binary) {
  auto [server, client] = co_await duet::when_all(echo_server(std::move(p.server), options),
                                                  echo_client(std::move(p.client), options, text, binary));
  CHECK(std::get<0>(server) == duet::io_errc::eof);
  CHECK(std::get<1>(server) == 1000);
  CHECK(client);
}

TEST_CASE("a duet client and server echo text as text and binary as binary, then close with 1000") {
  on_each_backend([](Pair& p) -> Task<void> {
    std::string binary("\0\1\2\xff", 4);
    binary += std::string(200'000, 'b');  // past the receive buffer: gathered by the reader
    co_await echo_round_trip(p, {}, "hello", binary);
  });
}

TEST_CASE("permessage-deflate is negotiated both ways and compressed messages round-trip") {
  on_each_backend([](Pair& p) -> Task<void> {
    WsOptions options;
    options.session.deflate.enabled = true;
    std::string text;
    for (int i = 0; i < 500; ++i) text += "compressible line " + std::to_string(i % 7) + "\n";
    co_await echo_round_trip(p, options, text, std::string(5000, 'z'));
  });
}

Task<void> close_from_server(TcpStream conn) {
  auto ws = co_await duet::ws_accept(std::move(conn));
  REQUIRE(ws);
  auto closed = co_await ws->close(4001, "done");
  CHECK(closed);
  CHECK(ws->close_code() == 4001);  // the client echoed our code
  CHECK(!ws->stream().is_open());   // the server closed TCP
}

Task<void> see_close(TcpStream conn) {
  auto ws = co_await duet::ws_connect(std::move(conn), "127.0.0.1", "/");
  REQUIRE(ws);
  auto m = co_await ws->receive();
  CHECK(m.eof());
  CHECK(ws->close_code() == 4001);
  CHECK(ws->close_reason() == "done");
  CHECK(ws->state() == duet::WsState::closed);
  auto again = co_await ws->receive();
  CHECK(again.eof());
  auto send = co_await ws->send_text("late");
  CHECK(send.error() == std::errc::not_connected);
}

TEST_CASE("a close the server begins reaches the client with its code and reason, and is echoed") {
  on_each_backend([](Pair& p) -> Task<void> {
    co_await duet::when_all(close_from_server(std::move(p.server)), see_close(std::move(p.client)));
  });
}

Task<void> send_too_big(TcpStream conn, std::size_t size = 2000) {
  auto ws = co_await duet::ws_connect(std::move(conn), "127.0.0.1", "/");
  REQUIRE(ws);
  const std::string big(size, 'x');
  auto sent = co_await ws->send_binary(big);
  REQUIRE(sent);
  auto m = co_await ws->receive();
  CHECK(m.eof());
  CHECK(ws->close_code() == 1009);
}

Task<void> refuse_big(TcpStream conn) {
  WsOptions options;
  options.session.max_message_size = 1024;
  auto ws = co_await duet::ws_accept(std::move(conn), options);
  REQUIRE(ws);
  auto m = co_await ws->receive();
  CHECK(m.error() == std::errc::message_size);
  CHECK(ws->close_code() == 1009);
}

TEST_CASE("a message over max_message_size fails the connection with 1009 on both ends") {
  on_each_backend([](Pair& p) -> Task<void> {
    co_await duet::when_all(refuse_big(std::move(p.server)), send_too_big(std::move(p.client)));
  });
}

Task<IoResult<TcpStream>> accept_one(duet::TcpListener& l) { co_return co_await l.accept(); }
Task<IoResult<TcpStream>> connect_to(EventLoop& loop, duet::SocketAddress a) {
  co_return co_await TcpStream::connect(loop, a);
}

// Over TCP a server that closed with unread bytes would send an RST, which can
// destroy its close frame before the client reads it: it half-closes and drains.
Task<void> too_big_over_tcp(EventLoop& loop) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  auto [accepted, connected] =
      co_await duet::when_all(accept_one(listener), connect_to(loop, listener.local_address()));
  REQUIRE(accepted);
  REQUIRE(connected);
  co_await duet::when_all(refuse_big(std::move(*accepted)), send_too_big(std::move(*connected), 4 << 20));
}

TEST_CASE("over TCP, a client sending far past max_message_size still reads the server's 1009") {
  on_each_backend([](Pair& p) -> Task<void> { co_await too_big_over_tcp(p.server.loop()); });
}

TEST_CASE("a raw client's fragmented message arrives whole and its ping gets the automatic pong") {
  on_each_backend([](Pair& p) -> Task<void> {
    using duet::test::ws_client_frame;
    raw_write(p.client, duet::test::ws_upgrade_request() + ws_client_frame(0x01, "Hel") +
                            ws_client_frame(0x89, "are you there") + ws_client_frame(0x80, "lo") +
                            ws_client_frame(0x88, "\x03\xe8"));
    auto ws = co_await duet::ws_accept(std::move(p.server));
    REQUIRE(ws);
    auto m = co_await ws->receive();
    REQUIRE(m);
    CHECK(m->is_text());
    CHECK(m->data() == "Hel" "lo");
    auto end = co_await ws->receive();
    CHECK(end.eof());
    CHECK(ws->close_code() == 1000);
    const std::string got = raw_read_all(p.client);  // EOF: the server closed TCP
    CHECK(got.starts_with("HTTP/1.1 101 Switching Protocols\r\n"));
    CHECK(got.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") != std::string::npos);
    CHECK(got.ends_with(duet::test::ws_server_frame(0x8a, "are you there") + duet::test::ws_server_frame(0x88, "\x03\xe8")));
  });
}

TEST_CASE("a bad upgrade is answered 400 (426 for another version) and the connection closed") {
  on_each_backend([](Pair& p) -> Task<void> {
    const bool old_version = GENERATE(false, true);
    raw_write(p.client, old_version ? duet::test::ws_upgrade_request("8")
                                    : std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    auto ws = co_await duet::ws_accept(std::move(p.server));
    CHECK(ws.error() == std::errc::protocol_error);
    const std::string got = raw_read_all(p.client);
    if (old_version) {
      CHECK(got.starts_with("HTTP/1.1 426 "));
      CHECK(got.find("Sec-WebSocket-Version: 13\r\n") != std::string::npos);
    } else {
      CHECK(got.starts_with("HTTP/1.1 400 Bad Request\r\n"));
      CHECK(got.find("Upgrade does not name websocket") != std::string::npos);
    }
  });
}

TEST_CASE("the upgrade is bounded: a silent client times out, a head past max_head_bytes gets 431") {
  on_each_backend([](Pair& p) -> Task<void> {
    const bool silent = GENERATE(true, false);
    WsOptions options;
    options.handshake_timeout = 30ms;
    options.max_head_bytes = 1024;
    if (!silent) raw_write(p.client, duet::test::ws_upgrade_request("13", "X-Pad: " + std::string(2000, 'p') + "\r\n"));
    auto ws = co_await duet::ws_accept(std::move(p.server), options);
    CHECK(ws.error() == (silent ? std::errc::timed_out : std::errc::protocol_error));
    const std::string got = raw_read_all(p.client);  // closed either way
    CHECK(got.starts_with(silent ? "" : "HTTP/1.1 431 "));
  });
}

TEST_CASE("ws_accept over a head parsed by the caller serves the frames that came with it") {
  on_each_backend([](Pair& p) -> Task<void> {
    const std::string received = duet::test::ws_upgrade_request() + duet::test::ws_client_frame(0x82, "first");
    duet::http::RequestParser parser;
    REQUIRE(parser.parse(received) == duet::http::ParseEvent::head);
    const std::string_view leftover = std::string_view(received).substr(parser.consumed());
    auto ws = co_await duet::ws_accept(std::move(p.server), parser.head(), leftover);
    REQUIRE(ws);
    auto m = co_await ws->receive();
    REQUIRE(m);
    CHECK(m->data() == "first");
    auto t = co_await ws->receive(20ms);  // nothing more: the timeout leaves the connection usable
    CHECK(t.error() == std::errc::timed_out);
    raw_write(p.client, duet::test::ws_client_frame(0x81, "second"));
    auto again = co_await ws->receive(5s);
    REQUIRE(again);
    CHECK(again->data() == "second");
  });
}

TEST_CASE("a client refuses an answer that is not a valid 101 and closes") {
  on_each_backend([](Pair& p) -> Task<void> {
    const bool malformed = GENERATE(false, true);
    raw_write(p.server, malformed ? "HTTP/1.1 101\r\n\r\n" : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    auto ws = co_await duet::ws_connect(std::move(p.client), "127.0.0.1", "/");
    CHECK(ws.error() == std::errc::protocol_error);
    const std::string got = raw_read_all(p.server);  // the request, then EOF
    CHECK(got.starts_with("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  });
}

constexpr std::size_t pong_and_close_size = (2 + 4 + 4) + (2 + 4 + 2);

// A hand-written server: reads the upgrade, answers 101 for its key, then
// pings, says "hi" and closes; gives everything the client sent after the request.
Task<std::string> raw_server(TcpStream& conn) {
  std::string got;
  char buf[4096];
  while (got.find("\r\n\r\n") == std::string::npos) {
    auto n = co_await conn.recv(buf);
    REQUIRE(n);
    got.append(buf, *n);
  }
  const auto key_at = got.find("Sec-WebSocket-Key: ") + 19;
  const auto accept = duet::ws_accept_key(std::string_view(got).substr(key_at, 24));
  const std::string answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                             "Sec-WebSocket-Accept: " + std::string(accept.view()) + "\r\n\r\n" +
                             duet::test::ws_server_frame(0x89, "beat") + duet::test::ws_server_frame(0x81, "hi") +
                             duet::test::ws_server_frame(0x88, "\x0f\xa0");  // 4000
  auto sent = co_await conn.send_all(answer);
  REQUIRE(sent);
  got.erase(0, got.find("\r\n\r\n") + 4);
  while (got.size() < pong_and_close_size) {  // then we close: the client waits for that
    auto n = co_await conn.recv(buf);
    if (!n) break;
    got.append(buf, *n);
  }
  co_return got;
}

Task<void> client_sees_ping(TcpStream conn) {
  auto ws = co_await duet::ws_connect(std::move(conn), "127.0.0.1", "/");
  REQUIRE(ws);
  auto m = co_await ws->receive();  // the ping is answered on the way
  REQUIRE(m);
  CHECK(m->data() == "hi");
  auto end = co_await ws->receive();
  CHECK(end.eof());
  CHECK(ws->close_code() == 4000);
  CHECK(!ws->stream().is_open());  // the server's EOF came (the raw server closes on ours)
}

Task<void> raw_server_then_close(Pair& p, std::string& got) {
  got = co_await raw_server(p.server);
  p.server.close();
}

TEST_CASE("a duet client answers a server's ping with its pong and echoes the server's close") {
  on_each_backend([](Pair& p) -> Task<void> {
    std::string got;
    const auto start = std::chrono::steady_clock::now();
    co_await duet::when_all(raw_server_then_close(p, got), client_sees_ping(std::move(p.client)));
    // Masked frames: opcode and length, then a 4-byte key we cannot predict; the payload is masked.
    REQUIRE(got.size() == pong_and_close_size);
    CHECK(static_cast<unsigned char>(got[0]) == 0x8a);  // pong, FIN
    CHECK(static_cast<unsigned char>(got[1]) == 0x84);  // masked, 4 bytes
    CHECK(static_cast<unsigned char>(got[10]) == 0x88);  // close, FIN
    CHECK(static_cast<unsigned char>(got[11]) == 0x82);  // masked, the code alone
    CHECK(std::chrono::steady_clock::now() - start < 2s);  // the client's wait for EOF ended with the EOF
  });
}

}  // namespace
