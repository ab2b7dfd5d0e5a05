// libduet_hook and duplicated fds: dup, dup2, dup3 and fcntl(F_DUPFD,
// F_DUPFD_CLOEXEC) on hooked sockets, inside fibers, on both backends. A
// duplicate refers to the same open file description as its source, so it
// shares the O_NONBLOCK the program set (and the kernel's, which the hooks
// turn on) and the socket's timeouts; a dup2 target drops what it was.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "hook/hook_support.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/this_fiber.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::fiber::Scheduler;
using duet::test::Connection;
using duet::test::connect_to;
using duet::test::on_fiber;
using duet::test::read_n;
using duet::test::write_later;

namespace {

bool user_nonblocking(int fd) { return (::fcntl(fd, F_GETFL) & O_NONBLOCK) != 0; }
bool close_on_exec(int fd) { return (::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0; }

void set_user_nonblocking(int fd, bool on) {
  const int flags = ::fcntl(fd, F_GETFL);
  REQUIRE(::fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) == 0);
}

// A blocking read on fd must wait for a byte its peer writes 30 ms later.
bool read_waits_for_peer(int fd, int peer, const std::string& byte) {
  auto writer = write_later(peer, byte, 30ms);
  const auto start = std::chrono::steady_clock::now();
  const std::string got = read_n(fd, 1);
  const auto waited = std::chrono::steady_clock::now() - start;
  writer.join();
  return got == byte && waited >= 20ms;
}

// At once: well before any timeout or late write these tests set up (slack for a loaded machine).
bool read_says_eagain(int fd) {
  const auto read = duet::test::timed_read(fd);
  return read.n == -1 && read.error == EAGAIN && read.waited < 250ms;
}

}  // namespace

TEST_CASE("a dup of a blocking hooked socket blocks the fiber until data arrives, like the original") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const int d = ::dup(c.client);
    REQUIRE(d >= 0);
    CHECK_FALSE(user_nonblocking(d));
    CHECK(read_waits_for_peer(d, c.server, "a"));
    CHECK(read_waits_for_peer(c.client, c.server, "b"));
    ::close(d);
    c.close();
  });
}

TEST_CASE("fcntl F_DUPFD and F_DUPFD_CLOEXEC duplicate at or above the given fd and block like the original") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const int plain = ::fcntl(c.client, F_DUPFD, 200);
    const int cloexec = ::fcntl(c.client, F_DUPFD_CLOEXEC, 300);
    CHECK(plain >= 200);
    CHECK(cloexec >= 300);
    CHECK_FALSE(close_on_exec(plain));
    CHECK(close_on_exec(cloexec));
    CHECK_FALSE(user_nonblocking(plain));
    CHECK(read_waits_for_peer(plain, c.server, "p"));
    CHECK(read_waits_for_peer(cloexec, c.server, "c"));
    ::close(plain);
    ::close(cloexec);
    c.close();
  });
}

TEST_CASE("O_NONBLOCK set through one duplicate shows through every fd of the open file description") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const timeval bound{1, 0};  // a read that should say EAGAIN but blocks ends after 1 s
    REQUIRE(::setsockopt(c.client, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound) == 0);
    const int d = ::dup(c.client);
    set_user_nonblocking(d, true);
    CHECK(user_nonblocking(c.client));
    CHECK(read_says_eagain(c.client));
    set_user_nonblocking(c.client, false);
    CHECK_FALSE(user_nonblocking(d));
    CHECK(read_waits_for_peer(d, c.server, "x"));
    CHECK((duet::test::kernel_flags(d) & O_NONBLOCK) != 0);  // the loop still drives it
    ::close(d);
    c.close();
  });
}

TEST_CASE("a receive timeout set through one duplicate applies to the other: they are one socket") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const int d = ::dup(c.client);
    const timeval timeout{0, 50'000};
    REQUIRE(::setsockopt(c.client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0);
    const auto read = duet::test::timed_read(d);
    CHECK(read.n == -1);
    CHECK(read.error == EAGAIN);
    CHECK(read.waited >= 45ms);
    CHECK(read.waited < 1s);
    ::close(d);
    c.close();
  });
}

TEST_CASE("closing one duplicate leaves the other managed, and a socket that reuses its number shares nothing") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const int d = ::dup(c.client);
    ::close(c.client);
    CHECK(read_waits_for_peer(d, c.server, "d"));
    const Connection reuse = connect_to(listener, port);  // most likely takes c.client's number
    set_user_nonblocking(d, true);
    CHECK_FALSE(user_nonblocking(reuse.client));
    set_user_nonblocking(reuse.client, true);
    set_user_nonblocking(d, false);
    CHECK(user_nonblocking(reuse.client));
    CHECK(read_waits_for_peer(d, c.server, "e"));
    for (const int fd : {d, c.server, reuse.client, reuse.server}) ::close(fd);
  });
}

TEST_CASE("dup2 onto a managed non-blocking socket gives the target the source's blocking mode") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection a = connect_to(listener, port);
    const Connection b = connect_to(listener, port);
    set_user_nonblocking(b.client, true);
    REQUIRE(::dup2(a.client, b.client) == b.client);
    CHECK_FALSE(user_nonblocking(b.client));
    CHECK(read_waits_for_peer(b.client, a.server, "a"));
    CHECK(read_n(b.server, 1).empty());  // b's old socket was closed: its peer sees EOF
    for (const int fd : {a.client, a.server, b.client, b.server}) ::close(fd);
  });
}

TEST_CASE("dup2 onto a managed socket a fiber has waited on wakes the target for the source's data") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection a = connect_to(listener, port);
    const Connection b = connect_to(listener, port);
    CHECK(read_waits_for_peer(b.client, b.server, "b"));  // epoll: b.client is registered now
    // Bounds the test if the target's wait is never woken (a stale epoll registration).
    const timeval timeout{2, 0};
    REQUIRE(::setsockopt(a.client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0);
    REQUIRE(::setsockopt(b.client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0);
    REQUIRE(::fcntl(b.client, F_SETFD, FD_CLOEXEC) == 0);
    REQUIRE(::dup2(a.client, b.client) == b.client);
    CHECK_FALSE(close_on_exec(b.client));  // dup2 clears it, as POSIX says
    CHECK(read_waits_for_peer(b.client, a.server, "a"));
    for (const int fd : {a.client, a.server, b.client, b.server}) ::close(fd);
  });
}

TEST_CASE("dup2 of a pipe onto a managed socket leaves the target unmanaged") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection b = connect_to(listener, port);
    int pipe_fds[2];
    REQUIRE(::pipe2(pipe_fds, O_NONBLOCK) == 0);
    REQUIRE(::dup2(pipe_fds[0], b.client) == b.client);
    REQUIRE(user_nonblocking(b.client));  // the pipe's own flag, not the socket's old state
    CHECK(read_says_eagain(b.client));
    REQUIRE(::write(pipe_fds[1], "p", 1) == 1);
    CHECK(read_n(b.client, 1) == "p");
    for (const int fd : {b.client, b.server, pipe_fds[0], pipe_fds[1]}) ::close(fd);
  });
}

TEST_CASE("dup2 of an fd onto itself changes nothing, and dup3 refuses it") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    set_user_nonblocking(c.client, true);
    CHECK(::dup2(c.client, c.client) == c.client);
    CHECK(user_nonblocking(c.client));
    CHECK(read_says_eagain(c.client));
    errno = 0;
    CHECK(::dup3(c.client, c.client, 0) == -1);
    CHECK(errno == EINVAL);
    set_user_nonblocking(c.client, false);
    CHECK(read_waits_for_peer(c.client, c.server, "s"));
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    ::close(pipe_fds[1]);
    errno = 0;
    CHECK(::dup2(pipe_fds[1], pipe_fds[1]) == -1);  // closed: EBADF, as for any bad fd
    CHECK(errno == EBADF);
    for (const int fd : {c.client, c.server, pipe_fds[0]}) ::close(fd);
  });
}

TEST_CASE("dup3 with O_CLOEXEC makes the target a close-on-exec duplicate that blocks like the source") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection a = connect_to(listener, port);
    const Connection b = connect_to(listener, port);
    set_user_nonblocking(b.client, true);
    REQUIRE(::dup3(a.client, b.client, O_CLOEXEC) == b.client);
    CHECK(close_on_exec(b.client));
    CHECK_FALSE(user_nonblocking(b.client));
    CHECK(read_waits_for_peer(b.client, a.server, "3"));
    for (const int fd : {a.client, a.server, b.client, b.server}) ::close(fd);
  });
}

TEST_CASE("a dup2 or dup3 that fails leaves the target, and a fiber waiting on it, untouched") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection a = connect_to(listener, port);
    const Connection b = connect_to(listener, port);
    auto reader = duet::fiber::spawn([&b] { return read_n(b.client, 2); });  // parks on b.client
    duet::fiber::yield();
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    ::close(pipe_fds[1]);
    errno = 0;
    CHECK(::dup2(pipe_fds[1], b.client) == -1);  // a closed source: EBADF
    CHECK(errno == EBADF);
    errno = 0;
    CHECK(::dup3(a.client, b.client, O_NONBLOCK) == -1);  // only O_CLOEXEC is allowed
    CHECK(errno == EINVAL);
    REQUIRE(::write(b.server, "ok", 2) == 2);
    CHECK(reader.join() == "ok");
    for (const int fd : {a.client, a.server, b.client, b.server, pipe_fds[0]}) ::close(fd);
  });
}

// poll() hands any fd to the loop, managed or not (epoll registers it once);
// closing or replacing that fd must make the loop forget it, or a new file
// that gets the number is never registered and its poll never wakes.
namespace {

// poll(fd, POLLIN) while a fiber writes a byte to peer 20 ms later: woken by
// the byte, well before its 1 s timeout (which bounds a wait never woken: at
// the timeout the hook's last look would find the byte too).
bool poll_wakes_for_write(int fd, int peer) {
  auto writer = write_later(peer, "w", 20ms);
  pollfd p{fd, POLLIN, 0};
  const auto start = std::chrono::steady_clock::now();
  const int n = ::poll(&p, 1, 1000);
  const auto waited = std::chrono::steady_clock::now() - start;
  writer.join();
  return n == 1 && (p.revents & POLLIN) != 0 && waited < 900ms;
}

// A pipe the loop has seen: a poll on it timed out.
void polled_pipe(int (&fds)[2]) {
  REQUIRE(::pipe(fds) == 0);
  pollfd p{fds[0], POLLIN, 0};
  REQUIRE(::poll(&p, 1, 5) == 0);
}

}  // namespace

TEST_CASE("poll on a pipe that reuses a closed pipe's fd number wakes when the new pipe is written") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int, std::uint16_t) {
    int old_pipe[2];
    polled_pipe(old_pipe);
    ::close(old_pipe[0]);
    ::close(old_pipe[1]);
    int fresh[2];
    REQUIRE(::pipe(fresh) == 0);
    CHECK(fresh[0] == old_pipe[0]);  // the lowest free number: the test is about reuse
    CHECK(poll_wakes_for_write(fresh[0], fresh[1]));
    ::close(fresh[0]);
    ::close(fresh[1]);
  });
}

// The kernel drops an epoll registration only when the file's last fd goes;
// here a dup keeps the old pipe open, so the registration of the closed
// number lingers on the old file unless the loop removes it before the close.
TEST_CASE("poll on a reused fd number wakes after closing one of two duplicates of the polled pipe") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int, std::uint16_t) {
    int old_pipe[2];
    REQUIRE(::pipe(old_pipe) == 0);
    const int copy = ::dup(old_pipe[0]);
    pollfd p{copy, POLLIN, 0};
    REQUIRE(::poll(&p, 1, 5) == 0);
    ::close(copy);  // old_pipe[0] still holds the file
    int fresh[2];
    REQUIRE(::pipe(fresh) == 0);
    CHECK(fresh[0] == copy);
    CHECK(poll_wakes_for_write(fresh[0], fresh[1]));
    for (const int fd : {old_pipe[0], old_pipe[1], fresh[0], fresh[1]}) ::close(fd);
  });
}

TEST_CASE("poll on a polled pipe's number wakes after dup2 puts another pipe there") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int, std::uint16_t) {
    int old_pipe[2];
    polled_pipe(old_pipe);
    int fresh[2];
    REQUIRE(::pipe(fresh) == 0);
    REQUIRE(::dup2(fresh[0], old_pipe[0]) == old_pipe[0]);  // closes the old read end
    CHECK(poll_wakes_for_write(old_pipe[0], fresh[1]));
    for (const int fd : {old_pipe[0], old_pipe[1], fresh[0], fresh[1]}) ::close(fd);
  });
}
