// The io_uring floor: the least a proactor can do to answer inline PING.
// One accept in flight; per connection one recv, then one send of every
// reply, then the next recv. One io_uring_submit_and_wait per loop turn,
// completions reaped in a batch. A short send drops the connection.
#include <liburing.h>

#include <memory>
#include <string>

#include "floor_common.hpp"

namespace {

struct Conn {
  explicit Conn(int socket) : fd(socket) {}
  int fd;
  bool sending = false;
  char buf[16384];
  std::string out;
};

io_uring ring;

// An SQE, flushing the queue to the kernel first if this turn filled it.
io_uring_sqe* next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  while (sqe == nullptr) {
    io_uring_submit(&ring);
    sqe = io_uring_get_sqe(&ring);
  }
  return sqe;
}

void arm_accept(int listener) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_accept(sqe, listener, nullptr, nullptr, 0);
  io_uring_sqe_set_data(sqe, nullptr);  // null user data = the listener
}

void arm_recv(Conn* c) {
  c->sending = false;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_recv(sqe, c->fd, c->buf, sizeof c->buf, 0);
  io_uring_sqe_set_data(sqe, c);
}

void on_conn(Conn* c, int res) {
  if (c->sending) {
    if (res == static_cast<int>(c->out.size())) return arm_recv(c);
  } else if (res > 0) {
    if (duet::floor::replies_for({c->buf, static_cast<std::size_t>(res)}, c->out) == 0) return arm_recv(c);
    c->sending = true;
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_send(sqe, c->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL);
    io_uring_sqe_set_data(sqe, c);
    return;
  }
  ::close(c->fd);
  delete c;
}

}  // namespace

int main(int argc, char** argv) {
  const int port = duet::floor::parse_port(argc, argv);
  const int listener = duet::floor::listen_on(port, 0);
  if (int err = io_uring_queue_init(4096, &ring, 0); err < 0) {
    std::fprintf(stderr, "floor_uring: io_uring_queue_init: %s\n", std::strerror(-err));
    return 1;
  }
  arm_accept(listener);
  for (;;) {
    io_uring_submit_and_wait(&ring, 1);
    io_uring_cqe* cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      auto* c = static_cast<Conn*>(io_uring_cqe_get_data(cqe));
      if (c != nullptr) {
        on_conn(c, cqe->res);
      } else {
        if (cqe->res >= 0) arm_recv(new Conn(cqe->res));
        arm_accept(listener);
      }
    }
    io_uring_cq_advance(&ring, seen);
  }
}
