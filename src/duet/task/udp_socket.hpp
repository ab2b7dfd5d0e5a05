// duet::UdpSocket — a UDP (datagram) socket for the stackless voice.
//
// Contract
// - bind(loop, addr) makes a non-blocking socket bound to addr (port 0: the
//   kernel picks one, local_address() tells which; IPv6 ones are IPv6-only);
//   open(loop, family) makes an unbound one (the kernel binds it on first
//   send). Both throw std::system_error, like TcpListener::bind.
// - connect(peer) only records the default peer (datagram connect never
//   waits) and filters what recv sees to that peer: IoResult<void> at once.
// - send / send_to / recv / recv_from return awaiters (see io_awaiter.hpp):
//   await them at once as prvalues. Each takes an optional std::stop_token;
//   wrap any in with_timeout(aw, d) for a deadline (std::errc::timed_out).
// - One datagram per call: send and send_to send all of buf or fail
//   (std::errc::message_size above the protocol's limit); recv and recv_from
//   give IoResult<Datagram>: the bytes placed in buf, and truncated = true when
//   the datagram was longer than buf (its tail is lost; never a silent short
//   read). A zero-length datagram is size 0, not EOF. recv_from also gives the
//   sender's address (Datagram::peer).
// - io_uring: IORING_OP_SENDMSG / RECVMSG; epoll: sendmsg / recvmsg when ready.
// - Move-only; the destructor closes the socket through the loop; close,
//   local_address, peer_address, native_handle come from SocketHandle. Loop thread
//   only. Any number of receivers and senders may wait at once, served in order.
//
//   auto sock = duet::UdpSocket::bind(loop, duet::SocketAddress::parse("127.0.0.1", 9000).value());
//   char buf[1500];
//   auto d = co_await sock.recv_from(buf);
//   if (d && !d->truncated) co_await sock.send_to(std::span(buf, d->size), d->peer);
#pragma once

#include <cstddef>
#include <span>
#include <stop_token>

#include "duet/io/datagram.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/socket_handle.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"
#include "duet/task/io_awaiter.hpp"

namespace duet {

namespace detail {

class DatagramSendAwaiter : public IoAwaiter {
 public:
  DatagramSendAwaiter(EventLoop& loop, int fd, const void* data, std::size_t len, const SocketAddress* to,
                      std::stop_token token) noexcept;
  ~DatagramSendAwaiter() { abandon(); }  // before msg_ goes: the kernel may still read it
  [[nodiscard]] IoResult<std::size_t> await_resume() const noexcept {
    return DatagramMessage::send_result(result());
  }

 private:
  DatagramMessage msg_;
};

class DatagramRecvAwaiter : public IoAwaiter {
 public:
  DatagramRecvAwaiter(EventLoop& loop, int fd, void* data, std::size_t len, bool want_peer,
                      std::stop_token token) noexcept;
  ~DatagramRecvAwaiter() { abandon(); }  // before msg_ goes: the kernel may still write it
  [[nodiscard]] IoResult<Datagram> await_resume() const noexcept { return msg_.recv_result(result()); }

 private:
  DatagramMessage msg_;
};

}  // namespace detail

class UdpSocket : public SocketHandle {
 public:
  UdpSocket() noexcept = default;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  UdpSocket(UdpSocket&& other) noexcept = default;
  UdpSocket& operator=(UdpSocket&& other) noexcept = default;
  ~UdpSocket() = default;  // SocketHandle closes through the loop

  [[nodiscard]] static UdpSocket bind(EventLoop& loop, const SocketAddress& addr, DatagramOptions options = {});
  [[nodiscard]] static UdpSocket open(EventLoop& loop, int family);

  IoResult<void> connect(const SocketAddress& peer) noexcept { return connect_datagram(native_handle(), peer); }

  [[nodiscard]] detail::DatagramSendAwaiter send(std::span<const char> buf, std::stop_token token = {}) noexcept {
    return {loop(), native_handle(), buf.data(), buf.size(), nullptr, std::move(token)};
  }
  [[nodiscard]] detail::DatagramSendAwaiter send_to(std::span<const char> buf, const SocketAddress& peer,
                                                    std::stop_token token = {}) noexcept {
    return {loop(), native_handle(), buf.data(), buf.size(), &peer, std::move(token)};
  }
  [[nodiscard]] detail::DatagramRecvAwaiter recv(std::span<char> buf, std::stop_token token = {}) noexcept {
    return {loop(), native_handle(), buf.data(), buf.size(), false, std::move(token)};
  }
  [[nodiscard]] detail::DatagramRecvAwaiter recv_from(std::span<char> buf, std::stop_token token = {}) noexcept {
    return {loop(), native_handle(), buf.data(), buf.size(), true, std::move(token)};
  }

 private:
  UdpSocket(EventLoop& loop, int fd) noexcept : SocketHandle(loop, fd) {}
};

}  // namespace duet
