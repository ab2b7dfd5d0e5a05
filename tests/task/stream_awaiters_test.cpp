// The stream awaiters behind TcpStream and TcpListener (src/duet/task/detail/
// stream_awaiters.hpp) where they meet stop requests and destroyed frames.
// Both races below need two completions delivered in one loop turn, the first
// one's handler acting on the second op (stopping it, or destroying its frame)
// while that op's result already waits for delivery: cancel() then finds
// nothing in flight. Each test drives the loop itself with a time limit, so a
// lost stop is a failed check, not a hung suite. (Plain stream I/O over both
// backends: tests/io/io_test.cpp.)
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <system_error>

#include "duet/io/event_loop.hpp"
#include "duet/io/unique_fd.hpp"
#include "support/open_fds.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::Task;
using duet::TcpListener;
using duet::TcpStream;
using duet::UniqueFd;
using duet::test::open_fd_count;
using namespace std::chrono_literals;

// io_uring with and without DEFER_TASKRUN (which changes when the kernel runs
// an accept relative to our cancel), and epoll.
struct LoopSetup {
  Backend backend;
  bool basic;
};

LoopSetup any_loop_setup() {
  return GENERATE(values<LoopSetup>({{Backend::io_uring, false}, {Backend::io_uring, true}, {Backend::epoll, false}}));
}

// A non-blocking AF_UNIX pair: `near` is a TcpStream on `loop`, `far` the peer the test drives.
struct StreamPair {
  TcpStream near;
  UniqueFd far;
  explicit StreamPair(EventLoop& loop) {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
    near = TcpStream(loop, fds[0]);
    far = UniqueFd(fds[1]);
  }
};

// Turns the loop until done() holds; false if it still does not after `limit`.
template <typename Done>
bool turn_until(EventLoop& loop, Done done, std::chrono::milliseconds limit = 3s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    loop.run_once(std::chrono::steady_clock::now() + 10ms);
  }
  return true;
}

void turn_for(EventLoop& loop, std::chrono::milliseconds span) {
  const auto until = std::chrono::steady_clock::now() + span;
  while (std::chrono::steady_clock::now() < until) loop.run_once(until);
}

void drain(int fd) {
  char buf[64 * 1024];
  while (::recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
}

// Started by hand (not through a scope), so a test can drop a suspended frame.
Task<void> started(Task<void> task) {
  task.handle().resume();
  return task;
}

}  // namespace

TEST_CASE("send_all stops when the stop request lands while a chunk's result awaits delivery") {
  const LoopSetup setup = any_loop_setup();
  INFO("backend " << duet::backend_name(setup.backend) << (setup.basic ? " (basic setup)" : ""));
  EventLoop loop(setup.backend, duet::LoopOptions{.uring_basic_setup = setup.basic});
  StreamPair data(loop), control(loop);
  const std::string payload(8u << 20, 'z');  // far beyond the socket buffer: partial first chunk
  std::stop_source stop;
  std::optional<std::error_code> sender_error;
  Task<void> sender = started([](TcpStream& s, const std::string& p, std::stop_token token,
                                 std::optional<std::error_code>& out) -> Task<void> {
    auto r = co_await s.send_all(p, std::move(token));
    out = r ? std::error_code{} : r.error();
  }(data.near, payload, stop.get_token(), sender_error));
  Task<void> stopper = started([](TcpStream& s, std::stop_source& src) -> Task<void> {
    char c;
    (void)co_await s.recv(std::span<char>(&c, 1));
    src.request_stop();  // the sender's chunk has finished: its cancel() finds no op in flight
  }(control.near, stop));
  turn_for(loop, 20ms);  // the first chunks go out; both ops park (io_uring: in the kernel)
  REQUIRE(loop.in_flight() == 2);
  REQUIRE(::write(control.far.get(), "s", 1) == 1);  // the stopper's recv becomes ready first,
  drain(data.far.get());                              // then the sender's socket becomes writable
  CHECK(turn_until(loop, [&] { return sender.done(); }));
  CHECK(sender_error == std::make_error_code(std::errc::operation_canceled));
  CHECK(stopper.done());
}  // on failure the sender is still parked: destroying its frame abandons the send

TEST_CASE("destroying a task whose accept beat the cancel closes the accepted socket") {
  const LoopSetup setup = any_loop_setup();
  INFO("backend " << duet::backend_name(setup.backend) << (setup.basic ? " (basic setup)" : ""));
  EventLoop loop(setup.backend, duet::LoopOptions{.uring_basic_setup = setup.basic});
  StreamPair control(loop);
  // Before the bind, compared after the close: io_uring's accepts keep an
  // epoll fd per listener while it is open (uring_accept.cpp).
  const std::size_t fds_before = open_fd_count();
  auto listener = TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 0).value());
  auto acceptor = [](TcpListener& l) -> Task<void> { (void)co_await l.accept(); };
  // Destroys the acceptor from a completion delivered in the same turn as the accept's.
  auto killer = [](TcpStream& s, Task<void>& victim) -> Task<void> {
    char c;
    (void)co_await s.recv(std::span<char>(&c, 1));
    victim = Task<void>{};
  };
  for (int i = 0; i < 200; ++i) {
    Task<void> accepting = started(acceptor(listener));
    Task<void> kill = started(killer(control.near, accepting));
    loop.run_once();  // io_uring: both ops reach the kernel
    REQUIRE(::write(control.far.get(), "k", 1) == 1);
    UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const auto addr = listener.local_address();
    REQUIRE(::connect(client.get(), addr.data(), addr.size()) == 0);
    // Or destroyed right away: abandon() races the kernel's accept (io_uring
    // without DEFER_TASKRUN: the accept wins).
    if (i % 2 == 1) accepting = Task<void>{};
    REQUIRE(turn_until(loop, [&] { return kill.done(); }));
    // A connection the cancel left in the backlog would let the next accept finish inline: take it here.
    for (int left; (left = ::accept4(listener.native_handle(), nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) ::close(left);
  }
  CHECK(loop.in_flight() == 0);
  listener.close();
  CHECK(open_fd_count() == fds_before);
}
