// The epoll floor: the least a reactor can do to answer inline PING.
// Edge-triggered epoll, non-blocking sockets, read until EAGAIN, one write of
// every reply. Assumes the reply fits the socket buffer (true for PING at any
// pipeline redis-benchmark uses); a short write drops the connection.
#include <sys/epoll.h>

#include <cerrno>
#include <string>

#include "floor_common.hpp"

int main(int argc, char** argv) {
  const int port = duet::floor::parse_port(argc, argv);
  const int listener = duet::floor::listen_on(port, SOCK_NONBLOCK);
  const int ep = ::epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listener;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);

  epoll_event events[256];
  char buf[16384];
  std::string out;
  for (;;) {
    int n = ::epoll_wait(ep, events, 256, -1);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        for (int c; (c = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
          epoll_event cev{};
          cev.events = EPOLLIN | EPOLLET | EPOLLRDHUP;
          cev.data.fd = c;
          ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
        }
        continue;
      }
      bool close_it = false;
      for (;;) {
        ssize_t got = ::recv(fd, buf, sizeof buf, 0);
        if (got > 0) {
          std::size_t len = duet::floor::replies_for({buf, static_cast<std::size_t>(got)}, out);
          if (len && ::send(fd, out.data(), len, MSG_NOSIGNAL) != static_cast<ssize_t>(len)) close_it = true;
          if (close_it) break;
          continue;
        }
        close_it = got == 0 || errno != EAGAIN;
        break;
      }
      if (close_it) ::close(fd);  // close also removes it from the epoll set
    }
  }
}
