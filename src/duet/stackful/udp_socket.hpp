// duet::fiber::UdpSocket — a UDP (datagram) socket for the stackful voice: plain blocking calls.
//
// Contract
// - The same calls and values as the stackless duet::UdpSocket: bind / open
//   throw std::system_error; connect records the default peer at once;
//   send / send_to send one whole datagram -> IoResult<size_t>; recv /
//   recv_from -> IoResult<Datagram> (size, truncated when the datagram was
//   longer than buf, the sender's address for recv_from). A zero-length
//   datagram is size 0, not EOF.
// - Each call blocks only the calling fiber (one IoOp on its stack). Every call
//   takes an optional std::stop_token (std::errc::operation_canceled); the
//   overloads with a duration add a timeout (std::errc::timed_out).
// - Owns one non-blocking socket on the current scheduler's loop; move-only;
//   the destructor closes it through the loop (close, local_address,
//   peer_address, native_handle: SocketHandle). The scheduler's thread only;
//   calls that wait must be made on a fiber (std::logic_error otherwise).
//
//   auto sock = duet::fiber::UdpSocket::bind(duet::SocketAddress::parse("127.0.0.1", 9000).value());
//   char buf[1500];
//   auto d = sock.recv_from(buf, 1s);
//   if (d && !d->truncated) sock.send_to(std::span(buf, d->size), d->peer);
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <stop_token>

#include "duet/io/datagram.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/socket_handle.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"

namespace duet::fiber {

using duet::Datagram;
using duet::DatagramOptions;

class UdpSocket : public SocketHandle {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none

  UdpSocket() noexcept = default;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  UdpSocket(UdpSocket&& other) noexcept = default;
  UdpSocket& operator=(UdpSocket&& other) noexcept = default;
  ~UdpSocket() = default;  // SocketHandle closes through the loop

  [[nodiscard]] static UdpSocket bind(const SocketAddress& addr, DatagramOptions options = {});
  [[nodiscard]] static UdpSocket open(int family);

  IoResult<void> connect(const SocketAddress& peer) noexcept { return connect_datagram(native_handle(), peer); }

  IoResult<std::size_t> send(std::span<const char> buf, std::stop_token token = {}) {
    return send_datagram(buf, nullptr, Timeout{0}, token);
  }
  IoResult<std::size_t> send(std::span<const char> buf, Timeout timeout, std::stop_token token = {}) {
    return send_datagram(buf, nullptr, timeout, token);
  }
  IoResult<std::size_t> send_to(std::span<const char> buf, const SocketAddress& peer, std::stop_token token = {}) {
    return send_datagram(buf, &peer, Timeout{0}, token);
  }
  IoResult<std::size_t> send_to(std::span<const char> buf, const SocketAddress& peer, Timeout timeout,
                                std::stop_token token = {}) {
    return send_datagram(buf, &peer, timeout, token);
  }

  IoResult<Datagram> recv(std::span<char> buf, std::stop_token token = {}) {
    return recv_datagram(buf, false, Timeout{0}, token);
  }
  IoResult<Datagram> recv(std::span<char> buf, Timeout timeout, std::stop_token token = {}) {
    return recv_datagram(buf, false, timeout, token);
  }
  IoResult<Datagram> recv_from(std::span<char> buf, std::stop_token token = {}) {
    return recv_datagram(buf, true, Timeout{0}, token);
  }
  IoResult<Datagram> recv_from(std::span<char> buf, Timeout timeout, std::stop_token token = {}) {
    return recv_datagram(buf, true, timeout, token);
  }

 private:
  UdpSocket(EventLoop& loop, int fd) noexcept : SocketHandle(loop, fd) {}
  IoResult<std::size_t> send_datagram(std::span<const char> buf, const SocketAddress* to, Timeout timeout,
                                      const std::stop_token& token);
  IoResult<Datagram> recv_datagram(std::span<char> buf, bool want_peer, Timeout timeout,
                                   const std::stop_token& token);
};

}  // namespace duet::fiber
