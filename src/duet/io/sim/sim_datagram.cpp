// SimNet's datagrams (UDP, and sendmsg/recvmsg on a stream): boundaries
// kept, each arriving after its own latency (a later one may overtake), and
// dropped past 256 queued at the receiver, as a full socket buffer drops them.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "duet/io/sim/sim_net.hpp"
#include "duet/io/sim_world.hpp"

namespace duet::detail {

namespace {
constexpr std::size_t datagram_queue_max = 256;
}  // namespace

int SimNet::sendmsg(int fd, const msghdr& msg) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->kind != SimSocket::Kind::datagram) {
    if (msg.msg_iovlen != 1) return -EOPNOTSUPP;
    return send(fd, msg.msg_iov[0].iov_base, msg.msg_iov[0].iov_len);
  }
  SocketAddress to = s->peer;
  if (msg.msg_name != nullptr) {
    to = SocketAddress(static_cast<const sockaddr*>(msg.msg_name), msg.msg_namelen);
  } else if (!s->connected) {
    return -EDESTADDRREQ;
  }
  if (!s->bound) bind_ephemeral(*s);
  std::string bytes;
  for (std::size_t i = 0; i < msg.msg_iovlen; ++i) {
    bytes.append(static_cast<const char*>(msg.msg_iov[i].iov_base), msg.msg_iov[i].iov_len);
  }
  world_.trace_bytes(bytes.data(), bytes.size());
  const int n = static_cast<int>(bytes.size());
  SimSocket* target = datagram_for(to);
  if (target == nullptr) return n;  // nobody there: UDP drops it (the ICMP error is not modelled)
  if (target->inbox.size() < datagram_queue_max) {
    const auto arrives = world_.now() + world_.latency();
    auto at = target->inbox.end();  // in arrival order: a later send may overtake an earlier one
    while (at != target->inbox.begin() && std::prev(at)->arrives > arrives) --at;
    target->inbox.insert(at, {arrives, s->local, std::move(bytes)});
  }
  return n;
}

// MSG_TRUNC semantics as duet asks for them: the result is the datagram's
// length on the wire, the copy is cut to the buffer.
int SimNet::recvmsg(int fd, msghdr& msg, int flags) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->kind != SimSocket::Kind::datagram) {
    if (msg.msg_iovlen != 1) return -EOPNOTSUPP;
    return recv(fd, msg.msg_iov[0].iov_base, msg.msg_iov[0].iov_len);
  }
  if (s->inbox.empty() || s->inbox.front().arrives > world_.now()) return blocked;
  SimSocket::Datagram d = std::move(s->inbox.front());
  s->inbox.pop_front();
  std::size_t at = 0;
  for (std::size_t i = 0; i < msg.msg_iovlen && at < d.bytes.size(); ++i) {
    const std::size_t n = std::min(msg.msg_iov[i].iov_len, d.bytes.size() - at);
    std::memcpy(msg.msg_iov[i].iov_base, d.bytes.data() + at, n);
    at += n;
  }
  msg.msg_flags = at < d.bytes.size() ? MSG_TRUNC : 0;
  if (msg.msg_name != nullptr) {
    const socklen_t n = std::min(msg.msg_namelen, d.from.size());
    std::memcpy(msg.msg_name, d.from.data(), n);
    msg.msg_namelen = d.from.size();
  }
  world_.trace_bytes(d.bytes.data(), d.bytes.size());
  const bool trunc = (flags & MSG_TRUNC) != 0;
  return static_cast<int>(trunc ? d.bytes.size() : at);
}

}  // namespace duet::detail
