// duet::BufferedReader and duet::BufferedWriter (task/buffered.hpp) over a
// socket pair, on both backends: lines, delimiters, limits, EOF, peek, many
// small sends, stop tokens, timeouts, the writer's threshold and errors, and
// the random-split fuzz over a real socket (the core's own fuzz, with many
// more iterations, is tests/io/buffered_core_test.cpp). Over TLS: tests/tls.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/buffered.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"
#include "support/buffered_reference.hpp"

namespace {

using duet::Backend;
using duet::BufferedReader;
using duet::BufferedWriter;
using duet::EventLoop;
using duet::IoResult;
using duet::Task;
using duet::TcpStream;
using namespace std::chrono_literals;

// A connected AF_UNIX stream pair: `near` is read or written under test, `far` is the peer.
struct Pair {
  TcpStream near, far;
  explicit Pair(EventLoop& loop) {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
    near = TcpStream(loop, fds[0]);
    far = TcpStream(loop, fds[1]);
  }
  void write(std::string_view s) const {
    REQUIRE(::write(far.native_handle(), s.data(), s.size()) == static_cast<ssize_t>(s.size()));
  }
  // What the peer has received so far, without waiting.
  [[nodiscard]] std::string drain() const {
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::recv(far.native_handle(), buf, sizeof buf, MSG_DONTWAIT)) > 0;) got.append(buf, n);
    return got;
  }
};

template <typename Body>
void on_each_backend(Body body) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  Pair pair(loop);
  duet::run_until_complete(loop, body(loop, pair));
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("read_line strips \\n and \\r\\n and answers buffered lines at once, as views into its buffer") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    p.write("one\r\ntwo\nthree\n");
    BufferedReader reader(p.near);
    auto one = co_await reader.read_line(64);
    REQUIRE(one);
    CHECK(*one == "one");
    const char* next = reader.buffered().data();
    auto ready = reader.read_line(64);
    CHECK(ready.await_ready());  // no receive, no coroutine frame
    auto two = co_await ready;
    CHECK(*two == "two");
    CHECK(two->data() == next);  // not copied
    auto r1 = co_await reader.read_line(64);
    CHECK(*r1 == "three");
  });
}

TEST_CASE("read_until keeps its delimiter, a char or a string") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    p.write("a;bc\r\nd\r\r\n");
    BufferedReader reader(p.near);
    auto r2 = co_await reader.read_until(';');
    CHECK(*r2 == "a;");
    auto r3 = co_await reader.read_until("\r\n");
    CHECK(*r3 == "bc\r\n");
    auto r4 = co_await reader.read_until("\r\n", 16);
    CHECK(*r4 == "d\r\r\n");
  });
}

TEST_CASE("EOF before the delimiter is eof, and the partial bytes stay buffered") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    p.write("abc\npartial");
    REQUIRE(p.far.shutdown());
    BufferedReader reader(p.near);
    auto r5 = co_await reader.read_line(64);
    CHECK(*r5 == "abc");
    auto tail = co_await reader.read_line(64);
    CHECK(tail.eof());
    CHECK(reader.buffered() == "partial");
    auto r6 = co_await reader.read_exactly(7);
    CHECK(*r6 == "partial");
    auto r7 = co_await reader.read_line(64);
    CHECK(r7.eof());
    CHECK(reader.buffered().empty());  // a close between lines leaves nothing
  });
}

TEST_CASE("read_line fails with message_size past its maximum length, and the reader stays usable") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    p.write("abcdefgh\nok\r\n");
    BufferedReader reader(p.near);
    auto long_line = co_await reader.read_line(4);
    CHECK(long_line.error() == std::errc::message_size);
    CHECK(reader.buffered().starts_with("abcdefgh\n"));  // nothing consumed
    auto r8 = co_await reader.read_until('\n');
    CHECK(*r8 == "abcdefgh\n");
    auto r9 = co_await reader.read_line(4);
    CHECK(*r9 == "ok");
    p.write("0123456789");  // no newline at all: known too long without waiting for more
    auto r10 = co_await reader.read_line(4);
    CHECK(r10.error() == std::errc::message_size);
  });
}

Task<void> send_in_small_pieces(EventLoop& loop, TcpStream& to, std::string data) {
  std::mt19937 rng(7);
  for (std::size_t at = 0; at < data.size();) {
    const std::size_t n = std::min<std::size_t>(1 + rng() % 5, data.size() - at);
    auto r11 = co_await to.send_all(std::string_view(data).substr(at, n));
    REQUIRE(r11);
    at += n;
    co_await duet::sleep_for(loop, 0ms);  // let the reader take this piece alone
  }
}

Task<std::string> read_exactly_copy(BufferedReader<TcpStream>& reader, std::size_t n) {
  auto r = co_await reader.read_exactly(n);
  co_return r ? std::string(*r) : "error: " + r.error().message();
}

TEST_CASE("read_exactly gathers its bytes across many small sends, growing past its first capacity") {
  on_each_backend([](EventLoop& loop, Pair& p) -> Task<void> {
    std::string data;
    for (int i = 0; i < 600; ++i) data += static_cast<char>('a' + i % 26);
    BufferedReader reader(p.near, 16);
    auto [sent, got] = co_await duet::when_all(send_in_small_pieces(loop, p.far, data), read_exactly_copy(reader, 600));
    CHECK(got == data);
  });
}

TEST_CASE("peek looks without consuming, waiting for the bytes it asks for; the next read gets them") {
  on_each_backend([](EventLoop& loop, Pair& p) -> Task<void> {
    p.write("he");
    BufferedReader reader(p.near);
    auto [sent, peeked] = co_await duet::when_all(send_in_small_pieces(loop, p.far, "llo world\n"), [](auto& r) -> Task<std::string> {
      co_return std::string(*co_await r.peek(5));
    }(reader));
    CHECK(peeked == "hello");
    CHECK(reader.buffered().starts_with("hello"));
    auto r12 = co_await reader.read_line(64);
    CHECK(*r12 == "hello world");
  });
}

Task<void> stop_after(EventLoop& loop, std::stop_source& stop, std::chrono::milliseconds delay) {
  co_await duet::sleep_for(loop, delay);
  stop.request_stop();
}

Task<void> write_after(EventLoop& loop, Pair& p, std::string_view bytes, std::chrono::milliseconds delay) {
  co_await duet::sleep_for(loop, delay);
  p.write(bytes);
}

Task<std::error_code> read_line_error(BufferedReader<TcpStream>& reader, std::stop_token token) {
  co_return (co_await reader.read_line(64, std::move(token))).error();
}

TEST_CASE("a stop token cancels a waiting read, and the next read loses none of the bytes") {
  on_each_backend([](EventLoop& loop, Pair& p) -> Task<void> {
    BufferedReader reader(p.near);
    p.write("hel");
    std::stop_source stop;
    auto [error, stopped] = co_await duet::when_all(read_line_error(reader, stop.get_token()), stop_after(loop, stop, 5ms));
    CHECK(error == std::errc::operation_canceled);
    CHECK(reader.buffered() == "hel");
    auto at_once = reader.read_line(64, stop.get_token());  // already stopped: fails without waiting
    CHECK(at_once.await_ready());
    auto r13 = co_await at_once;
    CHECK(r13.error() == std::errc::operation_canceled);
    p.write("lo\n");
    auto r14 = co_await reader.read_line(64);
    CHECK(*r14 == "hello");
  });
}

TEST_CASE("a timeout bounds a whole read, and the next read loses none of the bytes") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    BufferedReader reader(p.near);
    p.write("par");
    auto r15 = co_await reader.read_line(64, 20ms);
    CHECK(r15.error() == std::errc::timed_out);
    auto r16 = co_await reader.read_exactly(10, 5ms);
    CHECK(r16.error() == std::errc::timed_out);
    p.write("tial\n");
    auto r17 = co_await reader.read_line(64, 1s);
    CHECK(*r17 == "partial");
  });
}

TEST_CASE("read_some returns what is buffered, else one receive, so the rest can be read raw") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    p.write("head\nbody");
    BufferedReader reader(p.near);
    auto r18 = co_await reader.read_line(64);
    CHECK(*r18 == "head");
    auto r19 = co_await reader.read_some();
    CHECK(*r19 == "body");
    p.write("raw");
    char buf[8];
    auto n = co_await reader.stream().recv(buf);  // the buffer is empty: raw reads see the rest
    CHECK(std::string_view(buf, *n) == "raw");
  });
}

Task<std::error_code> read_some_error(BufferedReader<TcpStream>& reader, std::stop_token token) {
  co_return (co_await reader.read_some(std::move(token))).error();
}

Task<std::string> read_some_copy(BufferedReader<TcpStream>& reader) {
  auto r = co_await reader.read_some();
  co_return r ? std::string(*r) : r.error().message();
}

TEST_CASE("read_some on an empty buffer waits for one receive; a stop cancels it and EOF ends it") {
  on_each_backend([](EventLoop& loop, Pair& p) -> Task<void> {
    BufferedReader reader(p.near);
    std::stop_source stop;
    auto [error, stopped] = co_await duet::when_all(read_some_error(reader, stop.get_token()), stop_after(loop, stop, 5ms));
    CHECK(error == std::errc::operation_canceled);
    CHECK(reader.buffered().empty());
    auto at_once = reader.read_some(stop.get_token());  // already stopped: fails without waiting
    CHECK(at_once.await_ready());
    CHECK((co_await at_once).error() == std::errc::operation_canceled);
    auto [bytes, sent] = co_await duet::when_all(read_some_copy(reader), write_after(loop, p, "late", 5ms));
    CHECK(bytes == "late");
    CHECK(reader.buffered().empty());  // read_some consumed what it returned
    p.far.close();
    auto end = co_await reader.read_some();
    CHECK(end.eof());
  });
}

TEST_CASE("a writer holds small writes until its threshold or a flush, then sends them in order") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    BufferedWriter writer(p.near, 16);
    auto r20 = co_await writer.write("abc");
    REQUIRE(r20);
    CHECK(writer.pending() == 3);
    CHECK(p.drain().empty());
    auto r21 = co_await writer.write("0123456789abcd");
    REQUIRE(r21);  // 17 bytes: past the threshold
    CHECK(writer.pending() == 0);
    CHECK(p.drain() == "abc0123456789abcd");
    auto r22 = co_await writer.write("xy");
    REQUIRE(r22);
    auto r23 = co_await writer.flush();
    REQUIRE(r23);
    CHECK(p.drain() == "xy");
    const std::string big(40, 'z');  // at least the threshold: sent after what was held
    auto r24 = co_await writer.write("ab");
    REQUIRE(r24);
    auto r25 = co_await writer.write(big);
    REQUIRE(r25);
    CHECK(p.drain() == "ab" + big);
    auto nothing = writer.flush();
    CHECK(nothing.await_ready());  // nothing buffered: no I/O
    auto r26 = co_await nothing;
    CHECK(r26);
  });
}

TEST_CASE("a writer's send error surfaces on the write that met it and sticks; a stopped token writes nothing") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    BufferedWriter writer(p.near, 8);
    std::stop_source stop;
    stop.request_stop();
    auto r27 = co_await writer.write("abc", stop.get_token());
    CHECK(r27.error() == std::errc::operation_canceled);
    CHECK(writer.pending() == 0);
    p.far.close();
    auto failed = co_await writer.write("0123456789");
    CHECK(!failed);
    auto again = writer.write("a");
    CHECK(again.await_ready());
    auto r28 = co_await again;
    CHECK(r28.error() == failed.error());
    auto r29 = co_await writer.flush();
    CHECK(r29.error() == failed.error());
  });
}

TEST_CASE("a flush the peer never drains times out, and the writer stays failed") {
  on_each_backend([](EventLoop&, Pair& p) -> Task<void> {
    BufferedWriter writer(p.near, 64);
    const std::string chunk(1 << 20, 'x');  // more than a socket pair buffers
    auto r30 = co_await writer.write("hello");
    REQUIRE(r30);
    auto r31 = co_await writer.write(chunk, 20ms);
    CHECK(r31.error() == std::errc::timed_out);
    auto r32 = co_await writer.flush();
    CHECK(r32.error() == std::errc::timed_out);
  });
}

Task<std::error_code> write_error(BufferedWriter<TcpStream>& writer, std::string_view data, std::stop_token token) {
  co_return (co_await writer.write(data, std::move(token))).error();
}

TEST_CASE("a stop token cancels a flush the peer never drains, and the writer stays failed") {
  on_each_backend([](EventLoop& loop, Pair& p) -> Task<void> {
    BufferedWriter writer(p.near, 64);
    const std::string chunk(1 << 20, 'x');  // more than a socket pair buffers
    std::stop_source stop;
    auto [error, stopped] = co_await duet::when_all(write_error(writer, chunk, stop.get_token()),
                                                    stop_after(loop, stop, 5ms));
    CHECK(error == std::errc::operation_canceled);
    auto after = co_await writer.flush();
    CHECK(after.error() == std::errc::operation_canceled);
  });
}

Task<void> send_pieces_then_close(EventLoop& loop, TcpStream& to, std::string data, std::vector<std::size_t> pieces) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    auto r33 = co_await to.send_all(std::string_view(data).substr(at, pieces[i]));
    REQUIRE(r33);
    at += pieces[i];
    if (i % 2 == 0) co_await duet::sleep_for(loop, 0ms);
  }
  REQUIRE(to.shutdown());
}

Task<std::vector<duet::test::Outcome>> run_script(BufferedReader<TcpStream>& reader, const duet::test::Script& script) {
  using Kind = duet::test::ReadOp::Kind;
  std::vector<duet::test::Outcome> out;
  for (const auto& op : script.ops) {
    IoResult<std::string_view> r = std::error_code{};
    switch (op.kind) {
      case Kind::line: r = co_await reader.read_line(op.n); break;
      case Kind::until_char: r = co_await reader.read_until('\n', op.n); break;
      case Kind::until_string: r = co_await reader.read_until(duet::test::fuzz_delim, op.n); break;
      case Kind::exactly: r = co_await reader.read_exactly(op.n); break;
      case Kind::peek: r = co_await reader.peek(op.n); break;
    }
    if (!duet::test::record(out, r, reader)) break;
  }
  // Drain to EOF: a Unix socket counts each small send's overhead, so a sender
  // nobody reads from would fill it after a few hundred pieces.
  for (;;) {
    auto r = co_await reader.read_some();
    if (!r) break;
  }
  co_return out;
}

TEST_CASE("over a socket, random split points give the reference splitter's answers") {
  on_each_backend([](EventLoop& loop, Pair& p) -> Task<void> {
    std::mt19937 rng(42);
    for (int iteration = 0; iteration < 25; ++iteration) {
      Pair pair(loop);
      const auto script = duet::test::random_script(rng);
      const auto pieces = duet::test::random_pieces(rng, script.stream.size(), 1 + rng() % 24);
      BufferedReader reader(pair.near, 1 + rng() % 32);
      auto [sent, got] = co_await duet::when_all(send_pieces_then_close(loop, pair.far, script.stream, pieces),
                                                 run_script(reader, script));
      INFO("iteration " << iteration);
      CHECK(got == duet::test::reference_outcomes(script));
    }
    (void)p;
  });
}

}  // namespace
