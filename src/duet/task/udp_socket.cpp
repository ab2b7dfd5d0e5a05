// UdpSocket and its two awaiters: each awaiter is one IoOp plus the msghdr it
// points at (io/datagram.hpp), both in the awaiting frame.
#include "duet/task/udp_socket.hpp"

#include <utility>

namespace duet {

namespace detail {

DatagramSendAwaiter::DatagramSendAwaiter(EventLoop& loop, int fd, const void* data, std::size_t len,
                                         const SocketAddress* to, std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)) {
  msg_.prepare_send(op_, fd, data, len, to);
}

DatagramRecvAwaiter::DatagramRecvAwaiter(EventLoop& loop, int fd, void* data, std::size_t len, bool want_peer,
                                         std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)) {
  msg_.prepare_recv(op_, fd, data, len, want_peer);
}

}  // namespace detail

UdpSocket UdpSocket::bind(EventLoop& loop, const SocketAddress& addr, DatagramOptions options) {
  return UdpSocket(loop, open_datagram_socket(addr, options).release());
}

UdpSocket UdpSocket::open(EventLoop& loop, int family) {
  return UdpSocket(loop, open_datagram_socket(family).release());
}

}  // namespace duet
