// The fiber TcpListener: socket + SO_REUSEADDR (+ SO_REUSEPORT) + bind +
// listen, the same options as the stackless listener; accept is one FiberOp.
// serve_shard: one shard's part of a sharded server (connection_spreader.hpp).
#include "duet/stackful/tcp_listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "duet/io/socket_ops.hpp"
#include "duet/runtime/shard.hpp"
#include "duet/stackful/detail/fiber_op.hpp"
#include "duet/stackful/event.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace duet::fiber {

namespace {

EventLoop& current_loop(const char* what) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error(what);
  return scheduler->loop();
}

}  // namespace

TcpListener TcpListener::bind(const SocketAddress& addr, ListenOptions options) {
  EventLoop& loop = current_loop("duet: fiber TcpListener::bind on a thread without a Scheduler");
  UnixSocketFile file;
  UniqueFd fd = open_listener(addr, options, file);
  TcpListener listener(loop, fd.release());
  listener.file_ = std::move(file);
  return listener;
}

TcpListener TcpListener::adopt(UniqueFd fd) {
  EventLoop& loop = current_loop("duet: fiber TcpListener::adopt on a thread without a Scheduler");
  return TcpListener(loop, fd.release());
}

int TcpListener::accept_raw(TcpStream::Timeout timeout, std::stop_token token) {
  sockaddr_storage peer{};
  detail::FiberOp op;
  op.kind_ = OpKind::accept;
  op.fd_ = fd_;
  op.addr_ = reinterpret_cast<sockaddr*>(&peer);
  op.addrlen_ = sizeof peer;
  op.flags_ = SOCK_NONBLOCK | SOCK_CLOEXEC;
  op.timeout_ = timeout;
  const int res = detail::run_op(op, token);
  if (res >= 0) tune_new_stream(res, peer.ss_family);
  return res;
}

IoResult<TcpStream> TcpListener::accept(TcpStream::Timeout timeout, std::stop_token token) {
  const int res = accept_raw(timeout, std::move(token));
  if (res < 0) return error_from_res(res);
  return TcpStream(*loop_, res);
}

IoResult<UniqueFd> TcpListener::accept_fd(std::stop_token token) {
  const int res = accept_raw(TcpStream::Timeout{0}, std::move(token));
  if (res < 0) return error_from_res(res);
  return UniqueFd(res);
}

TcpListener::TcpListener(TcpListener&& other) noexcept
    : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)), file_(std::move(other.file_)) {}

TcpListener& TcpListener::operator=(TcpListener&& other) noexcept {
  if (this != &other) {
    close();
    loop_ = other.loop_;
    fd_ = std::exchange(other.fd_, -1);
    file_ = std::move(other.file_);
  }
  return *this;
}

// The file goes first, while the socket still listens (unix_socket_file.cpp).
void TcpListener::close() noexcept {
  file_.remove();
  if (fd_ >= 0) loop_->close_fd(std::exchange(fd_, -1));
}

SocketAddress TcpListener::local_address() const noexcept { return local_address_of(fd_); }

namespace {

// Accepts until stopped; each socket goes where the spreader says.
void accept_into(ConnectionSpreader& spreader, TcpListener listener, const AcceptErrorHandler& on_error,
                 const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    auto fd = listener.accept_fd(stop);
    if (fd) {
      spreader.place(std::move(*fd));
    } else if (const auto pause = on_error(fd.error(), listener.native_handle()); pause.count() > 0) {
      sleep_for(pause, stop);  // back off, do not spin
    }
  }
}

// The connection fibers of one shard: serve_shard returns after the last.
struct Live {
  std::size_t count = 0;
  Event none;
};

}  // namespace

void serve_shard(ConnectionSpreader& spreader, ShardHandler serve, const AcceptErrorHandler& on_error) {
  Shard& shard = *this_shard();
  EventLoop& loop = shard.loop();
  const std::stop_token stop = shard.stop_token();
  Live live;
  spreader.attach(shard.id(), [&](UniqueFd fd) {
    // Counted once spawned (a failed spawn closes the stream): the fiber runs
    // in a later scheduling turn, never inside spawn, so the count is up first.
    spawn([&live, &serve, &stop](TcpStream conn) {
      struct Done {  // also when serve throws (the exception goes on to the set)
        Live& live;
        ~Done() {
          if (--live.count == 0) live.none.set();
        }
      } done{live};
      serve(std::move(conn), stop);
    }, TcpStream(loop, fd.release())).detach();
    ++live.count;
  });
  if (UniqueFd fd = spreader.take_listener(shard.id())) {
    accept_into(spreader, TcpListener::adopt(std::move(fd)), on_error, stop);
  } else {
    // Only handed sockets arrive here (single mode): wait for the stop.
    while (!stop.stop_requested()) sleep_for(std::chrono::hours(1), stop);
  }
  spreader.detach(shard.id());
  while (live.count > 0) {
    live.none.reset();
    (void)live.none.wait();
  }
}

}  // namespace duet::fiber
