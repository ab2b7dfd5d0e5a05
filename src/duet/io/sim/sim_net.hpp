// duet::detail::SimNet — the in-memory network of a SimWorld: simulated
// stream (TCP, Unix) and datagram (UDP) sockets with the kernel's semantics.
//
// Contract
// - Every function answers as the syscall would, errno as -errno, with one
//   more answer, `blocked`: the non-blocking call would say EAGAIN, and the
//   op waits (SimPoller retries it when something changed).
// - Streams: bytes arrive after a seeded latency, in order; a direction holds
//   at most its window (in transit and unread) before send blocks; sends and
//   recvs may move fewer bytes than they could (SimOptions::short_transfer).
//   close() with unread bytes resets the connection (as Linux sends RST);
//   otherwise the peer reads what was sent, then EOF. Sending to a peer that
//   closed gives EPIPE, anything on a reset connection ECONNRESET.
// - A connect to an address nobody listens on is refused; one to a full
//   backlog waits. A listener closed with connections in its backlog resets
//   them.
// - Datagrams keep their boundaries, arrive after a latency, and are dropped
//   when the receiver holds 256 already.
// - The world's thread only.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "duet/io/io_op.hpp"
#include "duet/io/socket_address.hpp"

namespace duet {
class SimWorld;
}

namespace duet::detail {

using SimClock = std::chrono::steady_clock;

// Bytes one way along a connection.
struct SimPipe {
  struct Segment {
    SimClock::time_point arrives;
    std::string bytes;
  };
  std::deque<Segment> transit;
  std::string rx;
  std::size_t rx_head = 0;
  std::size_t transit_bytes = 0;
  std::size_t window = 64 * 1024;
  bool fin = false;  // the writer shut down or closed: EOF after the bytes
  SimClock::time_point last_arrival{};

  void settle(SimClock::time_point now);
  [[nodiscard]] std::size_t readable() const noexcept { return rx.size() - rx_head; }
  [[nodiscard]] std::size_t queued() const noexcept { return readable() + transit_bytes; }
};

struct SimConnection {
  SimPipe pipe[2];  // pipe[s]: from side s to side 1 - s
  bool reset = false;
  bool spared = false;  // no faults injected (SimWorld::spare_from_faults)
  bool closed[2] = {false, false};
};

struct SimSocket {
  enum class Kind : std::uint8_t { stream, listener, datagram };
  struct Datagram {
    SimClock::time_point arrives;
    SocketAddress from;
    std::string bytes;
  };

  Kind kind = Kind::stream;
  int family = AF_INET;
  SocketAddress local;
  SocketAddress peer;
  bool bound = false;
  bool connected = false;
  std::shared_ptr<SimConnection> conn;
  int side = 0;
  std::deque<std::unique_ptr<SimSocket>> backlog;  // listener: connections not accepted yet
  int backlog_max = 0;
  std::deque<Datagram> inbox;  // datagram
  std::string key;             // the address it is found by (listener, bound datagram socket)
};

class SimNet {
 public:
  static constexpr int blocked = INT_MIN + 1;

  explicit SimNet(SimWorld& world) noexcept : world_(world) {}
  SimNet(const SimNet&) = delete;
  SimNet& operator=(const SimNet&) = delete;
  SimNet(SimNet&&) = delete;
  SimNet& operator=(SimNet&&) = delete;
  ~SimNet() = default;

  [[nodiscard]] static bool simulated(int fd) noexcept;
  [[nodiscard]] SimSocket* find(int fd) noexcept;
  [[nodiscard]] std::size_t open_sockets() const noexcept { return sockets_.size(); }

  // Socket calls (sys.hpp): >= 0 or -errno.
  int socket(int family, int type);
  int close(int fd);
  int shutdown(int fd, int how);
  int bind(int fd, const SocketAddress& addr);
  int listen(int fd, int backlog);
  int connect_datagram(int fd, const SocketAddress& peer);
  int local_address(int fd, SocketAddress& out);
  int peer_address(int fd, SocketAddress& out);
  void reset_all();  // SimWorld::crash
  int spare(int fd);  // SimWorld::spare_from_faults

  // Ops (SimPoller): >= 0, -errno or blocked.
  int recv(int fd, void* buf, std::size_t len);
  int send(int fd, const void* buf, std::size_t len);
  int accept(int fd, sockaddr* addr, socklen_t* addrlen);
  int connect(IoOp& op);
  int poll(int fd, int events);
  int sendmsg(int fd, const msghdr& msg);
  int recvmsg(int fd, msghdr& msg, int flags);
  // The earliest virtual time at which op may progress by itself (bytes
  // arriving, a handshake ending), if any.
  [[nodiscard]] std::optional<SimClock::time_point> next_event(const IoOp& op);

 private:
  int add(std::unique_ptr<SimSocket> socket);
  [[nodiscard]] std::uint16_t ephemeral_port() noexcept { return next_port_++; }
  [[nodiscard]] SimSocket* listener_for(const SocketAddress& addr) noexcept;
  [[nodiscard]] SimSocket* datagram_for(const SocketAddress& addr) noexcept;
  void bind_ephemeral(SimSocket& s);
  [[nodiscard]] std::size_t split(std::size_t most) noexcept;
  void maybe_reset(SimSocket& s) noexcept;

  SimWorld& world_;
  std::unordered_map<int, std::unique_ptr<SimSocket>> sockets_;
  std::map<std::string, SimSocket*> listeners_;
  std::map<std::string, SimSocket*> datagram_ports_;
  int next_fd_ = 1 << 24;
  std::uint16_t next_port_ = 40000;
};

}  // namespace duet::detail
