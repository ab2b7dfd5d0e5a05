// SimNet: sockets as plain objects keyed by descriptor, listeners and bound
// datagram sockets keyed by their address's text. Nothing here waits or
// reads a clock but the world's: an op that cannot go on answers `blocked`
// and SimPoller asks again after something changed.
#include "duet/io/sim/sim_net.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "duet/io/sim_world.hpp"

namespace duet::detail {

namespace {
std::string wildcard_key(const SocketAddress& addr) {
  return addr.family() == AF_INET6 ? SocketAddress::any(addr.port(), true).to_string()
                                   : SocketAddress::any(addr.port()).to_string();
}

std::int64_t ticks(SimClock::time_point t) noexcept { return t.time_since_epoch().count(); }
}  // namespace

void SimPipe::settle(SimClock::time_point now) {
  while (!transit.empty() && transit.front().arrives <= now) {
    if (rx_head == rx.size()) {
      rx.clear();
      rx_head = 0;
    }
    rx += transit.front().bytes;
    transit_bytes -= transit.front().bytes.size();
    transit.pop_front();
  }
}

bool SimNet::simulated(int fd) noexcept { return fd >= SimWorld::first_fd; }

SimSocket* SimNet::find(int fd) noexcept {
  auto it = sockets_.find(fd);
  return it == sockets_.end() ? nullptr : it->second.get();
}

int SimNet::add(std::unique_ptr<SimSocket> socket) {
  const int fd = next_fd_++;
  sockets_.emplace(fd, std::move(socket));
  return fd;
}

int SimNet::socket(int family, int type) {
  if (family != AF_INET && family != AF_INET6 && family != AF_UNIX) return -EAFNOSUPPORT;
  const int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (base != SOCK_STREAM && base != SOCK_DGRAM) return -EPROTONOSUPPORT;
  auto s = std::make_unique<SimSocket>();
  s->family = family;
  s->kind = base == SOCK_STREAM ? SimSocket::Kind::stream : SimSocket::Kind::datagram;
  return add(std::move(s));
}

// As the kernel: unread bytes at close reset the connection, else the peer
// reads to EOF; a listener's unaccepted connections are reset.
int SimNet::close(int fd) {
  auto it = sockets_.find(fd);
  if (it == sockets_.end()) return -EBADF;
  SimSocket& s = *it->second;
  if (!s.key.empty()) {
    (s.kind == SimSocket::Kind::listener ? listeners_ : datagram_ports_).erase(s.key);
  }
  for (auto& pending : s.backlog) pending->conn->reset = true;
  if (s.conn) {
    SimPipe& in = s.conn->pipe[1 - s.side];
    in.settle(world_.now());
    if (in.queued() != 0 && !s.conn->reset) s.conn->reset = true;
    s.conn->pipe[s.side].fin = true;
    s.conn->closed[s.side] = true;
  }
  sockets_.erase(it);
  world_.trace(0xc105e000u ^ static_cast<std::uint64_t>(fd));
  return 0;
}

// A crash: the process's sockets are gone for everyone else (its listeners
// and ports free, its connections reset), though its descriptors stay for
// its owner to close.
void SimNet::reset_all() {
  for (auto& [fd, s] : sockets_) {
    if (!s->key.empty()) {
      (s->kind == SimSocket::Kind::listener ? listeners_ : datagram_ports_).erase(s->key);
      s->key.clear();
    }
    for (auto& pending : s->backlog) pending->conn->reset = true;
    if (s->conn) s->conn->reset = true;
  }
  world_.trace(0x7e5e7a11ULL);
}

int SimNet::shutdown(int fd, int how) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (!s->conn) return -ENOTCONN;
  if (how == SHUT_WR || how == SHUT_RDWR) s->conn->pipe[s->side].fin = true;
  return 0;
}

int SimNet::bind(int fd, const SocketAddress& addr) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->bound) return -EINVAL;
  SocketAddress local = addr;
  if (addr.family() != AF_UNIX && addr.port() == 0) {
    auto text = addr.to_string();
    auto host = text.substr(0, text.rfind(':'));
    if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
    local = SocketAddress::parse(host, ephemeral_port()).value_or(addr);
  }
  const std::string key = local.to_string();
  if (listeners_.count(key) != 0 || datagram_ports_.count(key) != 0) return -EADDRINUSE;
  s->local = local;
  s->bound = true;
  if (s->kind == SimSocket::Kind::datagram) {
    s->key = key;
    datagram_ports_[key] = s;
  }
  return 0;
}

int SimNet::listen(int fd, int backlog) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->kind == SimSocket::Kind::datagram) return -EOPNOTSUPP;
  if (!s->bound) bind_ephemeral(*s);
  s->kind = SimSocket::Kind::listener;
  s->backlog_max = std::max(backlog, 1);
  s->key = s->local.to_string();
  listeners_[s->key] = s;
  return 0;
}

void SimNet::bind_ephemeral(SimSocket& s) {
  if (s.family == AF_UNIX) {
    s.local = SocketAddress::unix_domain("@").value_or(SocketAddress());
  } else {
    s.local = SocketAddress::parse(s.family == AF_INET6 ? "::1" : "127.0.0.1", ephemeral_port()).value();
  }
  s.bound = true;
  if (s.kind == SimSocket::Kind::datagram && s.family != AF_UNIX) {
    s.key = s.local.to_string();
    datagram_ports_[s.key] = &s;
  }
}

int SimNet::connect_datagram(int fd, const SocketAddress& peer) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (!s->bound) bind_ephemeral(*s);
  s->peer = peer;
  s->connected = true;
  return 0;
}

int SimNet::local_address(int fd, SocketAddress& out) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  out = s->local;
  return 0;
}

int SimNet::peer_address(int fd, SocketAddress& out) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (!s->connected) return -ENOTCONN;
  out = s->peer;
  return 0;
}

SimSocket* SimNet::listener_for(const SocketAddress& addr) noexcept {
  auto it = listeners_.find(addr.to_string());
  if (it == listeners_.end() && addr.family() != AF_UNIX) it = listeners_.find(wildcard_key(addr));
  return it == listeners_.end() ? nullptr : it->second;
}

SimSocket* SimNet::datagram_for(const SocketAddress& addr) noexcept {
  auto it = datagram_ports_.find(addr.to_string());
  if (it == datagram_ports_.end() && addr.family() != AF_UNIX) it = datagram_ports_.find(wildcard_key(addr));
  return it == datagram_ports_.end() ? nullptr : it->second;
}

std::size_t SimNet::split(std::size_t most) noexcept {
  if (most <= 1 || !world_.chance(world_.options().short_transfer)) return most;
  return 1 + static_cast<std::size_t>(world_.below(most));
}

void SimNet::maybe_reset(SimSocket& s) noexcept {
  if (s.conn && !s.conn->reset && !s.conn->spared && world_.chance(world_.options().reset)) s.conn->reset = true;
}

int SimNet::spare(int fd) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (!s->conn) return -ENOTCONN;
  s->conn->spared = true;
  return 0;
}

int SimNet::recv(int fd, void* buf, std::size_t len) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->kind == SimSocket::Kind::datagram) {
    msghdr msg{};
    iovec iov{buf, len};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    const int n = recvmsg(fd, msg, 0);
    return n >= 0 ? static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(n), len)) : n;
  }
  if (!s->conn) return -ENOTCONN;
  maybe_reset(*s);
  if (s->conn->reset) return -ECONNRESET;
  SimPipe& in = s->conn->pipe[1 - s->side];
  in.settle(world_.now());
  if (in.readable() == 0) return in.fin && in.transit.empty() ? 0 : blocked;
  if (len == 0) return 0;
  const std::size_t n = split(std::min({len, in.readable(), std::size_t{INT_MAX}}));
  std::memcpy(buf, in.rx.data() + in.rx_head, n);
  in.rx_head += n;
  world_.trace_bytes(buf, n);
  return static_cast<int>(n);
}

int SimNet::send(int fd, const void* buf, std::size_t len) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->kind == SimSocket::Kind::datagram) {
    if (!s->connected) return -EDESTADDRREQ;
    msghdr msg{};
    iovec iov{const_cast<void*>(buf), len};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    return sendmsg(fd, msg);
  }
  if (!s->conn) return -ENOTCONN;
  maybe_reset(*s);
  if (s->conn->reset) return -ECONNRESET;
  SimPipe& out = s->conn->pipe[s->side];
  if (out.fin) return -EPIPE;
  if (s->conn->closed[1 - s->side]) {  // the peer answers with a reset
    s->conn->reset = true;
    return -EPIPE;
  }
  if (len == 0) return 0;
  const std::size_t room = out.window > out.queued() ? out.window - out.queued() : 0;
  if (room == 0) return blocked;
  const std::size_t n = split(std::min({len, room, std::size_t{INT_MAX}}));
  const auto arrives = std::max(out.last_arrival, world_.now() + world_.latency());
  out.last_arrival = arrives;
  out.transit.push_back({arrives, std::string(static_cast<const char*>(buf), n)});
  out.transit_bytes += n;
  world_.trace_bytes(buf, n);
  return static_cast<int>(n);
}

int SimNet::accept(int fd, sockaddr* addr, socklen_t* addrlen) {
  SimSocket* s = find(fd);
  if (s == nullptr) return -EBADF;
  if (s->kind != SimSocket::Kind::listener) return -EINVAL;
  if (s->backlog.empty()) return blocked;
  std::unique_ptr<SimSocket> conn = std::move(s->backlog.front());
  s->backlog.pop_front();
  if (addr != nullptr && addrlen != nullptr) {
    const socklen_t n = std::min(*addrlen, conn->peer.size());
    std::memcpy(addr, conn->peer.data(), n);
    *addrlen = conn->peer.size();
  }
  return add(std::move(conn));
}

// op.ts_[0]: 0 before the first try, then when the handshake ends (ns of
// the virtual clock). The listener's side exists (and may be accepted and
// written to) from the first try; the connector learns of it a latency later.
int SimNet::connect(IoOp& op) {
  SimSocket* s = find(op.fd_);
  if (s == nullptr) return -EBADF;
  if (op.ts_[0] != 0) return world_.now().time_since_epoch().count() >= op.ts_[0] ? 0 : blocked;
  if (s->kind != SimSocket::Kind::stream || s->conn) return -EISCONN;
  const SocketAddress peer(op.addr_, op.addrlen_);
  SimSocket* listener = listener_for(peer);
  if (listener == nullptr || listener->family != peer.family() || world_.chance(world_.options().refuse)) {
    return -ECONNREFUSED;
  }
  if (static_cast<int>(listener->backlog.size()) >= listener->backlog_max) return blocked;
  if (!s->bound) bind_ephemeral(*s);
  auto conn = std::make_shared<SimConnection>();
  const auto& o = world_.options();
  for (SimPipe& p : conn->pipe) {
    p.window = o.min_window + static_cast<std::size_t>(world_.below(o.max_window - o.min_window + 1));
  }
  auto accepted = std::make_unique<SimSocket>();
  accepted->family = peer.family();
  accepted->local = listener->local;
  accepted->peer = s->local;
  accepted->connected = true;
  accepted->conn = conn;
  accepted->side = 1;
  listener->backlog.push_back(std::move(accepted));
  s->peer = peer;
  s->connected = true;
  s->conn = std::move(conn);
  s->side = 0;
  op.ts_[0] = ticks(world_.now() + world_.latency());
  return blocked;
}

int SimNet::poll(int fd, int events) {
  SimSocket* s = find(fd);
  if (s == nullptr) return POLLNVAL;
  int revents = 0;
  switch (s->kind) {
    case SimSocket::Kind::listener:
      if (!s->backlog.empty()) revents |= POLLIN;
      break;
    case SimSocket::Kind::datagram:
      if (!s->inbox.empty() && s->inbox.front().arrives <= world_.now()) revents |= POLLIN;
      revents |= POLLOUT;
      break;
    case SimSocket::Kind::stream: {
      if (!s->conn) {
        revents |= POLLOUT | POLLHUP;
        break;
      }
      if (s->conn->reset) {
        revents |= POLLIN | POLLOUT | POLLERR | POLLHUP;
        break;
      }
      SimPipe& in = s->conn->pipe[1 - s->side];
      in.settle(world_.now());
      if (in.readable() != 0 || (in.fin && in.transit.empty())) revents |= POLLIN;
      if (in.fin && in.transit.empty() && in.readable() == 0) revents |= POLLRDHUP;
      const SimPipe& out = s->conn->pipe[s->side];
      if (out.queued() < out.window || s->conn->closed[1 - s->side]) revents |= POLLOUT;
      break;
    }
  }
  revents &= events | POLLERR | POLLHUP | POLLNVAL;
  return revents == 0 ? blocked : revents;
}

std::optional<SimClock::time_point> SimNet::next_event(const IoOp& op) {
  SimSocket* s = find(op.fd_);
  if (s == nullptr) return std::nullopt;
  if (op.kind_ == OpKind::connect && op.ts_[0] != 0) {
    return SimClock::time_point(SimClock::duration(op.ts_[0]));
  }
  // Only a reader is helped by bytes arriving; a writer waits for its peer
  // to read, which some other op does.
  const bool reads = op.kind_ == OpKind::recv || op.kind_ == OpKind::recv_pooled || op.kind_ == OpKind::read ||
                     op.kind_ == OpKind::recvmsg || (op.kind_ == OpKind::poll && (op.flags_ & POLLIN) != 0);
  if (!reads) return std::nullopt;
  if (s->kind == SimSocket::Kind::datagram) {
    if (!s->inbox.empty() && s->inbox.front().arrives > world_.now()) return s->inbox.front().arrives;
    return std::nullopt;
  }
  if (!s->conn) return std::nullopt;
  const SimPipe& in = s->conn->pipe[1 - s->side];
  if (!in.transit.empty() && in.transit.front().arrives > world_.now()) return in.transit.front().arrives;
  return std::nullopt;
}

}  // namespace duet::detail
