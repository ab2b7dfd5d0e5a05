// duet::TcpStream — a connected TCP socket for the stackless voice.
//
// Contract
// - Owns one non-blocking socket on one EventLoop; move-only; the destructor
//   closes it through the loop (loop.close_fd). Loop thread only.
// - connect/recv/send/send_all return awaiters (see io_awaiter.hpp): await them
//   at once as prvalues. Each accepts an optional std::stop_token; wrap any of
//   them in with_timeout(aw, d) for a deadline.
// - Results are values: recv -> IoResult<size_t> with EOF explicit (r.eof());
//   recv_pooled -> IoResult<RecvBuffer>, the bytes in a buffer lent by the loop;
//   send may be partial; send_all finishes partial sends and returns the total;
//   connect -> IoResult<TcpStream>; connect(loop, host, port) resolves a name
//   first and is a Task (see below).
// - One recv and one send may be in flight at the same time (a reader and a
//   writer coroutine on one stream); not two of the same kind.
// - Unix domain streams too: connect to SocketAddress::unix_domain(path or
//   "@name"); accepted ones come from a listener bound there. UnixStream names
//   this same type (TCP_NODELAY is set over IP only; set_nodelay on a Unix
//   stream gives operation_not_supported).
//
//   auto conn = co_await duet::TcpStream::connect(loop, duet::SocketAddress::parse("::1", 7000).value());
//   auto named = co_await duet::TcpStream::connect(loop, "db.internal", 6379);   // every address in turn
//   if (!conn) co_return;                    // conn.error(): refused, timed out, ...
//   co_await conn->send_all(std::string_view("ping"));
//   char buf[64]; auto n = co_await conn->recv(buf);
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/task/detail/stream_awaiters.hpp"
#include "duet/task/task.hpp"

namespace duet {

class TcpStream {
 public:
  TcpStream() noexcept = default;
  // Adopts a connected, non-blocking socket.
  TcpStream(EventLoop& loop, int fd) noexcept : loop_(&loop), fd_(fd) {}
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;
  TcpStream(TcpStream&& other) noexcept;
  TcpStream& operator=(TcpStream&& other) noexcept;
  ~TcpStream() { close(); }

  [[nodiscard]] static detail::ConnectAwaiter connect(EventLoop& loop, const SocketAddress& peer,
                                                      std::stop_token token = {}) noexcept {
    return detail::ConnectAwaiter(loop, peer, std::move(token));
  }

  // Resolves host (on the blocking pool, task/resolve.hpp) and tries its
  // addresses in order until one connects; the last one's error if none does
  // (or the resolver's, e.g. a bad name). The task must outlive it (a Task).
  [[nodiscard]] static Task<IoResult<TcpStream>> connect(EventLoop& loop, std::string host, std::uint16_t port,
                                                         std::stop_token token = {});

  [[nodiscard]] detail::TransferAwaiter recv(std::span<char> buf, std::stop_token token = {}) noexcept {
    return {*loop_, OpKind::recv, fd_, buf.data(), buf.size(), 0, std::move(token)};
  }
  [[nodiscard]] detail::TransferAwaiter recv(std::span<std::byte> buf, std::stop_token token = {}) noexcept {
    return {*loop_, OpKind::recv, fd_, buf.data(), buf.size(), 0, std::move(token)};
  }
  // Like recv, into a buffer the loop lends only once data is there: an idle
  // connection waiting here holds no buffer (see io/recv_buffer.hpp).
  [[nodiscard]] detail::RecvPooledAwaiter recv_pooled(std::stop_token token = {}) noexcept {
    return {*loop_, fd_, std::move(token)};
  }
  [[nodiscard]] detail::TransferAwaiter send(std::span<const char> buf, std::stop_token token = {}) noexcept {
    return {*loop_, OpKind::send, fd_, const_cast<char*>(buf.data()), buf.size(), 0, std::move(token)};
  }
  [[nodiscard]] detail::TransferAwaiter send(std::span<const std::byte> buf, std::stop_token token = {}) noexcept {
    return {*loop_, OpKind::send, fd_, const_cast<std::byte*>(buf.data()), buf.size(), 0, std::move(token)};
  }
  [[nodiscard]] detail::SendAllAwaiter send_all(std::span<const char> buf, std::stop_token token = {}) noexcept {
    return {*loop_, fd_, buf.data(), buf.size(), std::move(token)};
  }
  [[nodiscard]] detail::SendAllAwaiter send_all(std::span<const std::byte> buf,
                                                std::stop_token token = {}) noexcept {
    return {*loop_, fd_, buf.data(), buf.size(), std::move(token)};
  }

  // shutdown(2): SHUT_WR sends FIN after queued data (the peer's recv sees EOF).
  IoResult<void> shutdown(int how = SHUT_WR) noexcept;
  // TCP_NODELAY (on by default for streams duet creates or accepts).
  IoResult<void> set_nodelay(bool on) noexcept;
  [[nodiscard]] SocketAddress local_address() const noexcept;
  [[nodiscard]] SocketAddress peer_address() const noexcept;
  void close() noexcept;

  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }

 private:
  EventLoop* loop_ = nullptr;
  int fd_ = -1;
};

// A connected Unix domain stream socket: the same type over AF_UNIX.
using UnixStream = TcpStream;

}  // namespace duet
