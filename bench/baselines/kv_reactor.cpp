// kv_reactor: the KV core behind a callback reactor — epoll and function
// pointers, no coroutines, no fibers (the shape of the seed's reactor.c), as a
// baseline for the two voices. Each fd is registered once, edge-triggered for
// both directions; every event runs pump(), which sends what is pending, then
// reads until EAGAIN, so no EPOLL_CTL_MOD is ever needed on the hot path.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <chrono>
#include <unordered_map>

#include "baseline_socket.hpp"
#include "duet/io/socket_ops.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"

namespace {

using duet::kv::ServerRuntime;

struct Reactor;
struct Handler {
  void (*on_event)(Reactor&, Handler*, std::uint32_t events);
};

struct Connection : Handler {
  Connection(ServerRuntime& rt, int socket)
      : Handler{&Connection::event}, fd(socket),
        session(rt.state(), socket) {}
  static void event(Reactor& r, Handler* h, std::uint32_t events);
  int fd;
  duet::kv::Session session;
};

struct Reactor {
  explicit Reactor(ServerRuntime& runtime) : rt(runtime) {}
  ServerRuntime& rt;
  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  int listener = -1;
  Handler listener_handler{};
  bool stopping = false;
  // Keyed by address, so a stale event for a dropped connection is recognised
  // without touching the freed object.
  std::unordered_map<Handler*, std::unique_ptr<Connection>> conns;

  void watch(int fd, std::uint32_t events, Handler* h) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = h;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  }
  void drop(Connection* c) {
    int fd = c->fd;
    conns.erase(c);  // destroys the session (unregisters the client) first
    ::close(fd);      // closing also leaves the epoll set
    rt.on_disconnect();
  }
};

// Sends pending replies; false when the socket is full (wait for EPOLLOUT) or failed.
bool flush(Connection* c, bool& failed) {
  for (auto out = c->session.output(); !out.empty(); out = c->session.output()) {
    ssize_t n = ::send(c->fd, out.data(), out.size(), MSG_NOSIGNAL);
    if (n < 0) {
      failed = errno != EAGAIN;
      return false;
    }
    c->session.consume_output(static_cast<std::size_t>(n));
  }
  return true;
}

void Connection::event(Reactor& r, Handler* h, std::uint32_t) {
  auto* c = static_cast<Connection*>(h);
  for (;;) {
    bool failed = false;
    if (!flush(c, failed)) return failed ? r.drop(c) : void();
    if (c->session.closing()) return r.drop(c);
    if (!c->session.wants_input()) {
      c->session.process();
      continue;
    }
    auto space = c->session.input_space();
    ssize_t n = ::recv(c->fd, space.data(), space.size(), 0);
    if (n > 0) {
      c->session.commit_input(static_cast<std::size_t>(n));
    } else {
      if (n < 0 && errno == EAGAIN) return;  // edge consumed; wait for the next one
      return r.drop(c);
    }
  }
}

void on_accept(Reactor& r, Handler*, std::uint32_t) {
  for (;;) {
    int fd = ::accept4(r.listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EAGAIN) {
        // Pause accepting until the next tick instead of spinning on EMFILE.
        (void)r.rt.on_accept_error(std::error_code(errno, std::generic_category()), r.listener);
        epoll_event off{};
        off.data.ptr = &r.listener_handler;
        ::epoll_ctl(r.ep, EPOLL_CTL_MOD, r.listener, &off);
      }
      return;
    }
    if (!r.rt.admit(fd)) {
      ::close(fd);
      continue;
    }
    auto conn = std::make_unique<Connection>(r.rt, fd);
    Connection* c = conn.get();
    r.conns.emplace(c, std::move(conn));
    r.watch(fd, EPOLLIN | EPOLLOUT | EPOLLET | EPOLLRDHUP, c);
    Connection::event(r, c, EPOLLIN);
  }
}

void on_tick(Reactor& r, int timer) {
  std::uint64_t expirations;
  (void)::read(timer, &expirations, sizeof expirations);
  r.stopping = r.rt.tick();
  epoll_event on{};  // re-enable accepting if an accept error paused it
  on.events = EPOLLIN;
  on.data.ptr = &r.listener_handler;
  ::epoll_ctl(r.ep, EPOLL_CTL_MOD, r.listener, &on);
}

int run(ServerRuntime& rt) {
  Reactor r(rt);
  r.listener = duet::baseline::listen_socket(rt.listen_address(), SOCK_NONBLOCK);
  rt.on_listening(duet::local_address_of(r.listener));
  r.listener_handler.on_event = on_accept;
  r.watch(r.listener, EPOLLIN, &r.listener_handler);
  int timer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(rt.tick_interval()).count();
  itimerspec spec{{0, interval}, {0, interval}};
  ::timerfd_settime(timer, 0, &spec, nullptr);
  Handler timer_handler{nullptr};
  r.watch(timer, EPOLLIN, &timer_handler);

  epoll_event events[256];
  while (!r.stopping) {
    int n = ::epoll_wait(r.ep, events, 256, -1);
    for (int i = 0; i < n; ++i) {
      auto* h = static_cast<Handler*>(events[i].data.ptr);
      if (h == &timer_handler) {
        on_tick(r, timer);
      } else if (h == &r.listener_handler || r.conns.count(h) != 0) {
        h->on_event(r, h, events[i].events);
      }
    }
  }
  while (!r.conns.empty()) r.drop(r.conns.begin()->second.get());
  ::close(timer);
  ::close(r.listener);
  ::close(r.ep);
  rt.on_stopped();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return ServerRuntime::main(argc, argv, "reactor", run); }
