// TcpListener: socket + SO_REUSEADDR (+ SO_REUSEPORT) + bind + listen; IPv6
// listeners stay IPv6-only so "::" and "0.0.0.0" can be bound side by side.
// serve_shard: one shard's part of a sharded server (connection_spreader.hpp).
#include "duet/task/tcp_listener.hpp"

#include <netinet/in.h>

#include <cerrno>
#include <chrono>
#include <system_error>
#include <utility>

#include "duet/io/socket_ops.hpp"
#include "duet/runtime/shard.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task_scope.hpp"

namespace duet {

namespace detail {

IoResult<UniqueFd> AcceptFdAwaiter::await_resume() noexcept {
  if (result() < 0) return error_from_res(result());
  tune_new_stream(result(), family_);
  return UniqueFd(result());
}

}  // namespace detail

TcpListener TcpListener::bind(EventLoop& loop, const SocketAddress& addr, ListenOptions options) {
  UnixSocketFile file;
  UniqueFd fd = open_listener(addr, options, file);
  TcpListener listener(loop, fd.release(), addr.family());
  listener.file_ = std::move(file);
  return listener;
}

TcpListener TcpListener::adopt(EventLoop& loop, UniqueFd fd) noexcept {
  const int family = local_address_of(fd.get()).family();
  return TcpListener(loop, fd.release(), family);
}

TcpListener::TcpListener(TcpListener&& other) noexcept
    : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)), family_(other.family_), file_(std::move(other.file_)) {}

TcpListener& TcpListener::operator=(TcpListener&& other) noexcept {
  if (this != &other) {
    close();
    loop_ = other.loop_;
    fd_ = std::exchange(other.fd_, -1);
    family_ = other.family_;
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
Task<void> accept_into(ConnectionSpreader& spreader, TcpListener listener, const AcceptErrorHandler& on_error,
                       std::stop_token stop) {
  EventLoop& loop = this_shard()->loop();
  while (!stop.stop_requested()) {
    auto fd = co_await listener.accept_fd(stop);
    if (fd) {
      spreader.place(std::move(*fd));
    } else if (const auto pause = on_error(fd.error(), listener.native_handle()); pause.count() > 0) {
      co_await sleep_for(loop, pause, stop);  // back off, do not spin
    }
  }
}

}  // namespace

Task<void> serve_shard(ConnectionSpreader& spreader, ShardHandler serve, AcceptErrorHandler on_error) {
  Shard& shard = *this_shard();
  EventLoop& loop = shard.loop();
  const std::stop_token stop = shard.stop_token();
  TaskScope scope;
  spreader.attach(shard.id(), [&](UniqueFd fd) { scope.spawn(serve(TcpStream(loop, fd.release()), stop)); });
  if (UniqueFd fd = spreader.take_listener(shard.id())) {
    co_await accept_into(spreader, TcpListener::adopt(loop, std::move(fd)), on_error, stop);
  } else {
    // Only handed sockets arrive here (single mode): wait for the stop.
    while (!stop.stop_requested()) co_await sleep_for(loop, std::chrono::hours(1), stop);
  }
  spreader.detach(shard.id());
  co_await scope.join();
}

}  // namespace duet
