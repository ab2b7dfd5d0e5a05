// duet::fiber::BufferedReader and duet::fiber::BufferedWriter (stackful/buffered.hpp)
// over a socket pair, on both backends: the stackless tests' cases
// (tests/task/buffered_test.cpp) as blocking calls on fibers, with the
// random-split fuzz over a real socket.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "duet/stackful/buffered.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "support/buffered_reference.hpp"
#include "support/on_fibers.hpp"

namespace {

using duet::Backend;
using duet::IoResult;
using duet::fiber::BufferedReader;
using duet::fiber::BufferedWriter;
using duet::fiber::TcpStream;
using namespace std::chrono_literals;

// A connected AF_UNIX stream pair on the current scheduler: `near` under test, `far` the peer.
struct Pair {
  TcpStream near, far;
  Pair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
    auto& loop = duet::fiber::Scheduler::current()->loop();
    near = TcpStream(loop, fds[0]);
    far = TcpStream(loop, fds[1]);
  }
  void write(std::string_view s) const {
    REQUIRE(::write(far.native_handle(), s.data(), s.size()) == static_cast<ssize_t>(s.size()));
  }
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
  CHECK(duet::test::on_fibers(backend, [&] {
    Pair pair;
    body(pair);
    return true;
  }));
}

// Sends data in pieces of the given sizes, letting the reader run between them; then FIN.
void send_pieces_then_close(TcpStream& to, std::string_view data, const std::vector<std::size_t>& pieces) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    REQUIRE(to.send_all(data.substr(at, pieces[i])));
    at += pieces[i];
    if (i % 2 == 0) duet::fiber::yield();
  }
  REQUIRE(to.shutdown());
}

TEST_CASE("fiber read_line strips \\n and \\r\\n and answers buffered lines as views into its buffer") {
  on_each_backend([](Pair& p) {
    p.write("one\r\ntwo\nthree\n");
    BufferedReader reader(p.near);
    CHECK(*reader.read_line(64) == "one");
    const char* next = reader.buffered().data();
    auto two = reader.read_line(64);
    CHECK(*two == "two");
    CHECK(two->data() == next);
    CHECK(*reader.read_line(64) == "three");
    CHECK(reader.read_until(';', 8, 1ms).error() == std::errc::timed_out);  // nothing more buffered or sent
  });
}

TEST_CASE("fiber read_until keeps its delimiter; EOF before it is eof with the partial bytes buffered") {
  on_each_backend([](Pair& p) {
    p.write("a;bc\r\npartial");
    REQUIRE(p.far.shutdown());
    BufferedReader reader(p.near);
    CHECK(*reader.read_until(';') == "a;");
    CHECK(*reader.read_until("\r\n") == "bc\r\n");
    CHECK(reader.read_until("\r\n").eof());
    CHECK(reader.buffered() == "partial");
    CHECK(*reader.read_exactly(7) == "partial");
    CHECK(reader.read_line(64).eof());
    CHECK(reader.buffered().empty());
  });
}

TEST_CASE("fiber read_line fails with message_size past its maximum length, and the reader stays usable") {
  on_each_backend([](Pair& p) {
    p.write("abcdefgh\nok\r\n");
    BufferedReader reader(p.near);
    CHECK(reader.read_line(4).error() == std::errc::message_size);
    CHECK(reader.buffered().starts_with("abcdefgh\n"));
    CHECK(*reader.read_until('\n') == "abcdefgh\n");
    CHECK(*reader.read_line(4) == "ok");
  });
}

TEST_CASE("fiber read_exactly gathers its bytes across many small sends; peek then read") {
  on_each_backend([](Pair& p) {
    std::string data;
    for (int i = 0; i < 600; ++i) data += static_cast<char>('a' + i % 26);
    std::mt19937 rng(7);
    const auto pieces = duet::test::random_pieces(rng, data.size(), 5);
    auto sender = duet::fiber::spawn([&] { send_pieces_then_close(p.far, data, pieces); });
    BufferedReader reader(p.near, 16);
    CHECK(*reader.peek(10) == data.substr(0, 10));
    CHECK(reader.buffered().starts_with(data.substr(0, 10)));
    CHECK(*reader.read_exactly(600) == data);
    sender.join();
  });
}

TEST_CASE("a stop token cancels a waiting fiber read, a timeout bounds one, and neither loses bytes") {
  on_each_backend([](Pair& p) {
    BufferedReader reader(p.near);
    p.write("hel");
    std::stop_source stop;
    auto stopper = duet::fiber::spawn([&] {
      duet::fiber::sleep_for(5ms);
      stop.request_stop();
    });
    CHECK(reader.read_line(64, stop.get_token()).error() == std::errc::operation_canceled);
    stopper.join();
    CHECK(reader.read_line(64, stop.get_token()).error() == std::errc::operation_canceled);  // at once
    CHECK(reader.read_line(64, 10ms).error() == std::errc::timed_out);
    CHECK(reader.buffered() == "hel");
    p.write("lo\n");
    CHECK(*reader.read_line(64, 1s) == "hello");
  });
}

TEST_CASE("a fiber writer holds small writes until its threshold or a flush; its errors stick") {
  on_each_backend([](Pair& p) {
    BufferedWriter writer(p.near, 16);
    REQUIRE(writer.write("abc"));
    CHECK(writer.pending() == 3);
    CHECK(p.drain().empty());
    REQUIRE(writer.write("0123456789abcd"));
    CHECK(p.drain() == "abc0123456789abcd");
    REQUIRE(writer.write("xy"));
    REQUIRE(writer.flush());
    CHECK(p.drain() == "xy");
    const std::string big(40, 'z');
    REQUIRE(writer.write("ab"));
    REQUIRE(writer.write(big));
    CHECK(p.drain() == "ab" + big);
    std::stop_source stop;
    stop.request_stop();
    CHECK(writer.write("abc", stop.get_token()).error() == std::errc::operation_canceled);
    p.far.close();
    auto failed = writer.write(std::string(20, 'q'));
    CHECK(!failed);
    CHECK(writer.write("a").error() == failed.error());
    CHECK(writer.flush().error() == failed.error());
  });
}

TEST_CASE("a fiber flush the peer never drains times out") {
  on_each_backend([](Pair& p) {
    BufferedWriter writer(p.near, 64);
    REQUIRE(writer.write("hello"));
    CHECK(writer.write(std::string(1 << 20, 'x'), 20ms).error() == std::errc::timed_out);
    CHECK(writer.flush().error() == std::errc::timed_out);
  });
}

TEST_CASE("a stop token cancels a fiber flush the peer never drains") {
  on_each_backend([](Pair& p) {
    BufferedWriter writer(p.near, 64);
    std::stop_source stop;
    auto stopper = duet::fiber::spawn([&] {
      duet::fiber::sleep_for(5ms);
      stop.request_stop();
    });
    CHECK(writer.write(std::string(1 << 20, 'x'), stop.get_token()).error() == std::errc::operation_canceled);
    stopper.join();
    CHECK(writer.flush().error() == std::errc::operation_canceled);
  });
}

TEST_CASE("over a socket, random split points give fibers the reference splitter's answers") {
  on_each_backend([](Pair&) {
    using Kind = duet::test::ReadOp::Kind;
    std::mt19937 rng(43);
    for (int iteration = 0; iteration < 25; ++iteration) {
      INFO("iteration " << iteration);
      Pair pair;
      const auto script = duet::test::random_script(rng);
      const auto pieces = duet::test::random_pieces(rng, script.stream.size(), 1 + rng() % 24);
      auto sender = duet::fiber::spawn([&] { send_pieces_then_close(pair.far, script.stream, pieces); });
      BufferedReader reader(pair.near, 1 + rng() % 32);
      std::vector<duet::test::Outcome> got;
      for (const auto& op : script.ops) {
        IoResult<std::string_view> r = std::error_code{};
        switch (op.kind) {
          case Kind::line: r = reader.read_line(op.n); break;
          case Kind::until_char: r = reader.read_until('\n', op.n); break;
          case Kind::until_string: r = reader.read_until(duet::test::fuzz_delim, op.n); break;
          case Kind::exactly: r = reader.read_exactly(op.n); break;
          case Kind::peek: r = reader.peek(op.n); break;
        }
        if (!duet::test::record(got, r, reader)) break;
      }
      while (reader.read_some()) {
      }  // drain to EOF, so the sender finishes (see the stackless test)
      sender.join();
      CHECK(got == duet::test::reference_outcomes(script));
    }
  });
}

}  // namespace
