// libduet_hook: the calls that only wait — select, pselect, ppoll,
// epoll_wait, poll with no fds, nanosleep — block the calling fiber, never the
// thread, and answer as Linux does, on both backends.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>

#include <catch2/catch.hpp>

#include "hook/hook_support.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::test::Connection;
using duet::test::connect_to;
using duet::test::on_fiber;
namespace fiber = duet::fiber;

namespace {

// A second fiber that counts 3 ticks of 1 ms, then writes a byte to fd: a
// wait that ends with the byte there let it run all three.
struct Ticker {
  int ticks = 0;
  fiber::Fiber<ssize_t> fiber;
  explicit Ticker(int fd)
      : fiber(fiber::spawn([this, fd] {
          for (int i = 0; i < 3; ++i) {
            fiber::sleep_for(1ms);
            ++ticks;
          }
          return ::write(fd, "t", 1);
        })) {}
};

// wait(ms) (-1: no timeout) while a ticker writes to c.server: true if it
// returned 1 after the ticker's three ticks. Drains the byte. Call it with a
// bounded wait first: a wait that blocks the thread then fails (REQUIRE)
// instead of hanging the unbounded one.
template <typename Wait>
bool wait_lets_fibers_run(const Connection& c, Wait wait, int ms) {
  Ticker ticker(c.server);
  const int n = wait(ms);
  const int ticks = ticker.ticks;
  REQUIRE(ticker.fiber.join() == 1);
  char byte;
  REQUIRE(::read(c.client, &byte, 1) == 1);
  INFO("returned " << n << " after " << ticks << " ticks");
  return n == 1 && ticks == 3;
}

timeval tv_ms(int ms) { return timeval{ms / 1000, (ms % 1000) * 1000}; }
timespec ts_ms(int ms) { return timespec{ms / 1000, (ms % 1000) * 1'000'000L}; }

}  // namespace

TEST_CASE("select on a fiber lets other fibers run and reports readiness in its fd_sets") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const Connection idle = connect_to(listener, port);
    const int top = std::max(c.client, idle.client) + 1;
    auto readable = [&](int ms) {
      fd_set in;
      FD_ZERO(&in);
      FD_SET(c.client, &in);
      FD_SET(idle.client, &in);
      timeval tv = tv_ms(ms);
      const int n = ::select(top, &in, nullptr, nullptr, ms < 0 ? nullptr : &tv);
      CHECK(FD_ISSET(c.client, &in));
      CHECK_FALSE(FD_ISSET(idle.client, &in));
      return n;
    };
    REQUIRE(wait_lets_fibers_run(c, readable, 2000));
    CHECK(wait_lets_fibers_run(c, readable, -1));  // NULL: no timeout
    fd_set in, out;
    FD_ZERO(&in);
    FD_ZERO(&out);
    FD_SET(idle.client, &in);
    FD_SET(idle.client, &out);
    FD_SET(c.client, &out);
    timeval zero{0, 0};
    CHECK(::select(top, &in, &out, nullptr, &zero) == 2);  // a poll: both writable, nothing to read
    CHECK_FALSE(FD_ISSET(idle.client, &in));
    CHECK((FD_ISSET(idle.client, &out) && FD_ISSET(c.client, &out)));
    FD_ZERO(&in);
    FD_SET(idle.client, &in);
    timeval short_wait = tv_ms(10);
    CHECK(::select(top, &in, nullptr, nullptr, &short_wait) == 0);  // the timeout: sets cleared
    CHECK_FALSE(FD_ISSET(idle.client, &in));
    c.close();
    idle.close();
  });
}

TEST_CASE("pselect and ppoll on a fiber let other fibers run and report readiness") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    sigset_t none;
    sigemptyset(&none);
    const auto pselect_in = [&](int ms) {
      fd_set in;
      FD_ZERO(&in);
      FD_SET(c.client, &in);
      const timespec ts = ts_ms(ms);
      const int n = ::pselect(c.client + 1, &in, nullptr, nullptr, ms < 0 ? nullptr : &ts, &none);
      CHECK(FD_ISSET(c.client, &in));
      return n;
    };
    const auto ppoll_in = [&](int ms) {
      pollfd p{c.client, POLLIN, 0};
      const timespec ts = ts_ms(ms);
      const int n = ::ppoll(&p, 1, ms < 0 ? nullptr : &ts, nullptr);
      CHECK((p.revents & POLLIN) != 0);
      return n;
    };
    REQUIRE(wait_lets_fibers_run(c, pselect_in, 2000));
    REQUIRE(wait_lets_fibers_run(c, ppoll_in, 2000));
    CHECK(wait_lets_fibers_run(c, pselect_in, -1));
    CHECK(wait_lets_fibers_run(c, ppoll_in, -1));
    pollfd p{c.client, POLLIN, 0};
    const timespec zero{0, 0};
    CHECK(::ppoll(&p, 1, &zero, &none) == 0);
    const timespec bad{0, 1'000'000'000};
    errno = 0;
    CHECK(::ppoll(&p, 1, &bad, nullptr) == -1);
    CHECK(errno == EINVAL);
    c.close();
  });
}

TEST_CASE("epoll_wait on a fiber lets other fibers run and returns the ready events") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int listener, std::uint16_t port) {
    const Connection c = connect_to(listener, port);
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = c.client;
    REQUIRE(::epoll_ctl(ep, EPOLL_CTL_ADD, c.client, &ev) == 0);
    epoll_event got[4]{};
    const auto epoll_in = [&](int ms) {
      const int n = ::epoll_wait(ep, got, 4, ms);
      CHECK(got[0].data.fd == c.client);
      return n;
    };
    REQUIRE(wait_lets_fibers_run(c, epoll_in, 2000));
    CHECK(wait_lets_fibers_run(c, epoll_in, -1));
    CHECK(::epoll_wait(ep, got, 4, 0) == 0);
    CHECK(::epoll_wait(ep, got, 4, 10) == 0);
    ::close(ep);
    c.close();
  });
}

TEST_CASE("poll with no fds sleeps the fiber for its timeout while other fibers run") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int, std::uint16_t) {
    int ticks = 0;
    bool done = false;
    auto ticker = fiber::spawn([&] {
      while (!done) {
        ++ticks;
        fiber::sleep_for(1ms);
      }
    });
    const auto start = std::chrono::steady_clock::now();
    CHECK(::poll(nullptr, 0, 30) == 0);
    CHECK(std::chrono::steady_clock::now() - start >= 30ms);
    done = true;
    CHECK(ticks > 1);
    ticker.join();
  });
}

// poll(NULL, 0, -1) is a pause: on a fiber it never returns. A child process
// runs it, and a second fiber there reports after 20 ticks whether it came back.
TEST_CASE("poll with no fds and no timeout never returns on a fiber") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    fiber::Scheduler scheduler({.backend = backend});
    bool returned = false;
    scheduler.spawn([&] {
      ::poll(nullptr, 0, -1);
      returned = true;
    }).detach();
    scheduler.spawn([&] {
      for (int i = 0; i < 20; ++i) fiber::sleep_for(1ms);
      (void)::write(report[1], returned ? "R" : "W", 1);
      ::_exit(0);
    }).detach();
    scheduler.run();
    ::_exit(1);
  }
  ::close(report[1]);
  char answer = 0;
  CHECK(::read(report[0], &answer, 1) == 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(report[0]);
  CHECK(answer == 'W');  // still waiting
}

TEST_CASE("nanosleep and clock_nanosleep on a fiber refuse an invalid timespec with EINVAL") {
  on_fiber(GENERATE(Backend::io_uring, Backend::epoll), [](int, std::uint16_t) {
    for (const timespec bad : {timespec{0, 1'000'000'000}, timespec{-1, 0}, timespec{0, -1}}) {
      INFO("timespec {" << bad.tv_sec << ", " << bad.tv_nsec << "}");
      errno = 0;
      CHECK(::nanosleep(&bad, nullptr) == -1);
      CHECK(errno == EINVAL);
      CHECK(::clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, nullptr) == EINVAL);
    }
    const timespec ok{0, 1'000'000};
    CHECK(::nanosleep(&ok, nullptr) == 0);
    timespec until{};
    ::clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += 1'000'000;
    if (until.tv_nsec >= 1'000'000'000) {
      until.tv_nsec -= 1'000'000'000;
      ++until.tv_sec;
    }
    CHECK(::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == 0);
  });
}
