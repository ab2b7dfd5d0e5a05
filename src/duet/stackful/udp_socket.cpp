// The fiber UdpSocket: each call is one FiberOp plus the msghdr it points at
// (io/datagram.hpp), both on the calling fiber's stack, which cannot go away
// while the op is parked.
#include "duet/stackful/udp_socket.hpp"

#include <stdexcept>
#include <utility>

#include "duet/stackful/detail/fiber_op.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber {

namespace {
EventLoop& current_loop(const char* what) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error(what);
  return scheduler->loop();
}
}  // namespace

UdpSocket UdpSocket::bind(const SocketAddress& addr, DatagramOptions options) {
  EventLoop& loop = current_loop("duet: fiber UdpSocket::bind on a thread without a Scheduler");
  return UdpSocket(loop, open_datagram_socket(addr, options).release());
}

UdpSocket UdpSocket::open(int family) {
  EventLoop& loop = current_loop("duet: fiber UdpSocket::open on a thread without a Scheduler");
  return UdpSocket(loop, open_datagram_socket(family).release());
}

IoResult<std::size_t> UdpSocket::send_datagram(std::span<const char> buf, const SocketAddress* to, Timeout timeout,
                                               const std::stop_token& token) {
  detail::FiberOp op;
  duet::detail::DatagramMessage msg;
  msg.prepare_send(op, native_handle(), buf.data(), buf.size(), to);
  op.timeout_ = timeout;
  return duet::detail::DatagramMessage::send_result(detail::run_op(op, token));
}

IoResult<Datagram> UdpSocket::recv_datagram(std::span<char> buf, bool want_peer, Timeout timeout,
                                            const std::stop_token& token) {
  detail::FiberOp op;
  duet::detail::DatagramMessage msg;
  msg.prepare_recv(op, native_handle(), buf.data(), buf.size(), want_peer);
  op.timeout_ = timeout;
  return msg.recv_result(detail::run_op(op, token));
}

}  // namespace duet::fiber
