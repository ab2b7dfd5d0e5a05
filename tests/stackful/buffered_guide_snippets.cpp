// Code docs/GUIDE.md quotes in "Buffered reading and writing on fibers",
// compiled and run here; tests/stackful/check_guide_stackful.py keeps them equal.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "duet/stackful/buffered.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "support/on_fibers.hpp"

namespace {

using namespace std::chrono_literals;

// guide:begin buffered_fiber_session
// The line server's session on a fiber: the same calls, without co_await.
void session(duet::fiber::TcpStream conn) {
  duet::fiber::BufferedReader in(conn);
  duet::fiber::BufferedWriter out(conn);
  while (auto line = in.read_line(1024, 60s)) {  // EOF, timeout, too long or error: done
    if (!out.write(std::to_string(line->size()) + " " + std::string(*line) + "\n")) return;
    if (in.buffered().find('\n') == std::string_view::npos && !out.flush()) return;
  }
  (void)out.flush();
}
// guide:end

TEST_CASE("the GUIDE's fiber session answers pipelined lines with their lengths") {
  const duet::Backend backend = GENERATE(duet::Backend::io_uring, duet::Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
  const std::string_view wire = "hello\nworld\r\n";
  REQUIRE(::write(fds[1], wire.data(), wire.size()) == static_cast<ssize_t>(wire.size()));
  ::shutdown(fds[1], SHUT_WR);
  CHECK(duet::test::on_fibers(backend, [&] {
    session(duet::fiber::TcpStream(duet::fiber::Scheduler::current()->loop(), fds[0]));
    return true;
  }));
  char buf[64];
  const ssize_t n = ::read(fds[1], buf, sizeof(buf));
  CHECK(std::string_view(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "5 hello\n5 world\n");
  ::close(fds[1]);
}

}  // namespace
