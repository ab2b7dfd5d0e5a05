// Code docs/GUIDE.md quotes in "Buffered reading and writing" (the stackless
// part), compiled and run here; tests/io/check_guide.py keeps the two equal.
// (The complete line server it shows is examples/line_server.cpp.)
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <string>
#include <string_view>

#include "duet/io/event_loop.hpp"
#include "duet/task/buffered.hpp"
#include "duet/task/run.hpp"
#include "duet/task/tcp_stream.hpp"

namespace {

using namespace std::chrono_literals;

// guide:begin buffered_message
// A header block ending in an empty line, then a body of Content-Length bytes.
duet::Task<std::string> read_message(duet::BufferedReader<duet::TcpStream>& in) {
  auto head = co_await in.read_until("\r\n\r\n", 8 * 1024, 5s);  // a view, "\r\n\r\n" included
  if (!head) co_return "error: " + head.error().message();     // eof: buffered() holds the rest
  std::size_t length = 0;
  if (auto at = head->find("Content-Length: "); at != std::string_view::npos) {
    std::from_chars(head->data() + at + 16, head->data() + head->size(), length);
  }
  auto body = co_await in.read_exactly(length, 5s);  // `head` is no longer valid from here
  co_return body ? std::string(*body) : "error: " + body.error().message();
}
// guide:end

duet::Task<std::string> two_messages(duet::TcpStream& conn) {
  duet::BufferedReader in(conn);
  std::string first = co_await read_message(in);
  std::string second = co_await read_message(in);
  co_return first + "|" + second;
}

TEST_CASE("the GUIDE's read_message reads a header block then its body, twice from one buffer") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  duet::EventLoop loop(backend);
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
  duet::TcpStream conn(loop, fds[0]);
  const std::string wire = "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n";
  REQUIRE(::write(fds[1], wire.data(), wire.size()) == static_cast<ssize_t>(wire.size()));
  CHECK(duet::run_until_complete(loop, two_messages(conn)) == "hello|");
  ::close(fds[1]);
}

}  // namespace
