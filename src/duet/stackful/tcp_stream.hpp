// duet::fiber::TcpStream — a connected TCP socket for the stackful voice: plain blocking calls.
//
// Contract
// - The same calls as the stackless duet::TcpStream, returning the same
//   values: recv -> IoResult<size_t> (EOF explicit: r.eof()), send (may be
//   partial), send_all (finishes partial sends, returns the total), connect ->
//   IoResult<TcpStream>, shutdown -> IoResult<void>; errors are std::errc
//   values (timed_out, operation_canceled, connection_refused, ...).
// - Each call blocks only the calling fiber: it submits one IoOp on the
//   scheduler's loop and parks until its completion. Every call takes an
//   optional std::stop_token; the overloads with a duration add a timeout
//   (std::errc::timed_out; for send_all it bounds the whole transfer).
// - Owns one non-blocking socket on the current scheduler's loop; move-only;
//   the destructor closes it through the loop. The scheduler's thread only;
//   calls that wait must be made on a fiber (std::logic_error otherwise).
// - One recv and one send may be in flight at once (a reader and a writer fiber).
// - Unix domain streams too: connect to SocketAddress::unix_domain(path or
//   "@name"); accepted ones come from a listener bound there. UnixStream names
//   this same type (TCP_NODELAY is set over IP only; set_nodelay on a Unix
//   stream gives operation_not_supported).
//
//   auto conn = duet::fiber::TcpStream::connect(duet::SocketAddress::parse("::1", 7000).value());
//   auto named = duet::fiber::TcpStream::connect("db.internal", 6379);   // every address in turn
//   if (!conn) return;                        // conn.error(): refused, timed out, ...
//   conn->send_all(std::string_view("ping"));
//   char buf[64]; auto n = conn->recv(buf, 500ms);
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/recv_buffer.hpp"
#include "duet/io/socket_address.hpp"

namespace duet::fiber {

class TcpStream {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none

  TcpStream() noexcept = default;
  // Adopts a connected, non-blocking socket.
  TcpStream(EventLoop& loop, int fd) noexcept : loop_(&loop), fd_(fd) {}
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;
  TcpStream(TcpStream&& other) noexcept;
  TcpStream& operator=(TcpStream&& other) noexcept;
  ~TcpStream() { close(); }

  static IoResult<TcpStream> connect(const SocketAddress& peer, std::stop_token token = {}) {
    return connect(peer, Timeout{0}, std::move(token));
  }
  static IoResult<TcpStream> connect(const SocketAddress& peer, Timeout timeout, std::stop_token token = {});
  // Resolves host (on the blocking pool, stackful/resolve.hpp) and tries its
  // addresses in order until one connects (timeout: per address); the last
  // one's error if none does, or the resolver's (a bad name).
  static IoResult<TcpStream> connect(const std::string& host, std::uint16_t port, Timeout timeout = Timeout{0},
                                     std::stop_token token = {});

  IoResult<std::size_t> recv(std::span<char> buf, std::stop_token token = {}) {
    return recv(buf, Timeout{0}, std::move(token));
  }
  IoResult<std::size_t> recv(std::span<char> buf, Timeout timeout, std::stop_token token = {});
  IoResult<std::size_t> recv(std::span<std::byte> buf, std::stop_token token = {}) {
    return recv({reinterpret_cast<char*>(buf.data()), buf.size()}, Timeout{0}, std::move(token));
  }

  // Like recv, into a buffer the loop lends only once data is there: a fiber
  // waiting here holds no buffer (see io/recv_buffer.hpp).
  IoResult<RecvBuffer> recv_pooled(std::stop_token token = {}) { return recv_pooled(Timeout{0}, std::move(token)); }
  IoResult<RecvBuffer> recv_pooled(Timeout timeout, std::stop_token token = {});

  IoResult<std::size_t> send(std::span<const char> buf, std::stop_token token = {}) {
    return send(buf, Timeout{0}, std::move(token));
  }
  IoResult<std::size_t> send(std::span<const char> buf, Timeout timeout, std::stop_token token = {});
  IoResult<std::size_t> send(std::span<const std::byte> buf, std::stop_token token = {}) {
    return send({reinterpret_cast<const char*>(buf.data()), buf.size()}, Timeout{0}, std::move(token));
  }

  IoResult<std::size_t> send_all(std::span<const char> buf, std::stop_token token = {}) {
    return send_all(buf, Timeout{0}, std::move(token));
  }
  IoResult<std::size_t> send_all(std::span<const char> buf, Timeout timeout, std::stop_token token = {});
  IoResult<std::size_t> send_all(std::span<const std::byte> buf, std::stop_token token = {}) {
    return send_all({reinterpret_cast<const char*>(buf.data()), buf.size()}, Timeout{0}, std::move(token));
  }

  // shutdown(2): SHUT_WR sends FIN after queued data (the peer's recv sees EOF).
  IoResult<void> shutdown(int how = SHUT_WR) noexcept;
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

}  // namespace duet::fiber
