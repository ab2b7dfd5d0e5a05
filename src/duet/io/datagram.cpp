// DatagramMessage: msghdr bookkeeping for OpKind::sendmsg / recvmsg.
//
// Truncation is read twice over: MSG_TRUNC in the request makes the kernel
// return the datagram's real length (UDP and Unix datagram sockets honour it,
// on both backends: io_uring passes the flags to the same sock_recvmsg), and
// MSG_TRUNC in msg_flags says the same thing where a protocol ignores the
// request flag.
#include "duet/io/datagram.hpp"

#include <algorithm>
#include <cstring>

namespace duet::detail {

void DatagramMessage::prepare_send(IoOp& op, int fd, const void* data, std::size_t len,
                                   const SocketAddress* to) noexcept {
  iov_ = {const_cast<void*>(data), len};
  msg_ = {};
  msg_.msg_iov = &iov_;
  msg_.msg_iovlen = 1;
  if (to != nullptr) {  // a copy: the caller's address may be a temporary
    std::memcpy(&peer_, to->data(), to->size());
    msg_.msg_name = &peer_;
    msg_.msg_namelen = to->size();
  }
  op.kind_ = OpKind::sendmsg;
  op.fd_ = fd;
  op.buf_ = &msg_;
  op.len_ = len;
}

void DatagramMessage::prepare_recv(IoOp& op, int fd, void* data, std::size_t len, bool want_peer) noexcept {
  iov_ = {data, len};
  msg_ = {};
  msg_.msg_iov = &iov_;
  msg_.msg_iovlen = 1;
  if (want_peer) {
    msg_.msg_name = &peer_;
    msg_.msg_namelen = sizeof peer_;
  }
  op.kind_ = OpKind::recvmsg;
  op.fd_ = fd;
  op.buf_ = &msg_;
  op.len_ = len;
  op.flags_ = MSG_TRUNC;
}

IoResult<Datagram> DatagramMessage::recv_result(int res) const noexcept {
  if (res < 0) return error_from_res(res);
  Datagram d;
  d.full_size = static_cast<std::size_t>(res);
  d.size = std::min(d.full_size, iov_.iov_len);
  d.truncated = d.full_size > iov_.iov_len || (msg_.msg_flags & MSG_TRUNC) != 0;
  if (msg_.msg_name != nullptr) d.peer = SocketAddress(reinterpret_cast<const sockaddr*>(&peer_), msg_.msg_namelen);
  return d;
}

IoResult<std::size_t> DatagramMessage::send_result(int res) noexcept {
  if (res < 0) return error_from_res(res);
  return static_cast<std::size_t>(res);
}

}  // namespace duet::detail
