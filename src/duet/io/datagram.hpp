// duet::Datagram and detail::DatagramMessage — the half of a UDP socket both
// voices share: how one datagram's sendmsg/recvmsg op is described, and how its
// result becomes a value.
//
// Contract
// - A DatagramMessage holds the msghdr, iovec and peer address of one op
//   (OpKind::sendmsg or recvmsg). It lives beside the IoOp in the owner (an
//   awaiter or a fiber's stack frame) and must stay put while the op is in
//   flight: the kernel reads and writes it then. Not copyable.
// - recv asks the kernel with MSG_TRUNC, so the result is the datagram's length
//   on the wire even when the buffer is smaller: a datagram that did not fit is
//   reported (Datagram::truncated), never passed off as a short read. A
//   zero-length datagram is a datagram (size 0), not EOF: UDP has no EOF.
// - Pure bookkeeping, no syscalls; the owner's thread.
//
//   detail::DatagramMessage msg;
//   msg.prepare_recv(op, fd, buf, sizeof buf, /*want_peer=*/true);
//   ... submit op, wait for res ...
//   IoResult<Datagram> d = msg.recv_result(res);   // d->size, d->truncated, d->peer
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstddef>

#include "duet/io/io_op.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"

namespace duet {

// One received datagram.
struct Datagram {
  std::size_t size = 0;       // bytes placed in the buffer
  std::size_t full_size = 0;  // the datagram's length as sent (> size when truncated)
  bool truncated = false;     // longer than the buffer: the rest of it is lost
  SocketAddress peer;         // recv_from: the sender; recv: empty (family AF_UNSPEC)
};

namespace detail {

class DatagramMessage {
 public:
  DatagramMessage() noexcept = default;
  DatagramMessage(const DatagramMessage&) = delete;  // msg_ points into *this
  DatagramMessage& operator=(const DatagramMessage&) = delete;
  DatagramMessage(DatagramMessage&&) = delete;
  DatagramMessage& operator=(DatagramMessage&&) = delete;
  ~DatagramMessage() = default;

  // sendmsg of [data, data + len); to == nullptr: to the connected peer.
  void prepare_send(IoOp& op, int fd, const void* data, std::size_t len, const SocketAddress* to) noexcept;
  // recvmsg into [data, data + len), with the sender's address if want_peer.
  void prepare_recv(IoOp& op, int fd, void* data, std::size_t len, bool want_peer) noexcept;

  [[nodiscard]] IoResult<Datagram> recv_result(int res) const noexcept;
  [[nodiscard]] static IoResult<std::size_t> send_result(int res) noexcept;

 private:
  msghdr msg_{};
  iovec iov_{};
  sockaddr_storage peer_{};
};

}  // namespace detail
}  // namespace duet
