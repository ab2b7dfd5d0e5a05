// ConnectionSpreader: the listening sockets of a sharded server and the
// hand-off of accepted sockets between shards. An fd crosses threads only as
// an int inside a posted message: the accepting loop never registered it
// (epoll learns an fd at its first wait, io_uring holds no per-fd state), so
// the target's loop can adopt it as if it had accepted it itself.
#include "duet/runtime/connection_spreader.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include <utility>

#include "duet/runtime/shard_set.hpp"

namespace duet {

std::optional<AcceptMode> parse_accept_mode(std::string_view name) noexcept {
  if (name == "reuseport" || name == "reuse_port") return AcceptMode::reuse_port;
  if (name == "single") return AcceptMode::single;
  return std::nullopt;
}

std::string_view accept_mode_name(AcceptMode mode) noexcept {
  return mode == AcceptMode::single ? "single" : "reuseport";
}

std::chrono::milliseconds default_accept_backoff(std::error_code error, int /*listen_fd*/) noexcept {
  return std::chrono::milliseconds(error == std::errc::too_many_files_open ? 10 : 0);
}

ConnectionSpreader::ConnectionSpreader(std::size_t shards, const SocketAddress& addr, SpreadOptions options)
    : options_(options), address_(addr) {
  for (std::size_t i = 0; i < shards; ++i) slots_.push_back(std::make_unique<Slot>());
  const bool each = options_.mode == AcceptMode::reuse_port;
  options_.listen.reuse_port = each;
  if (each) retry_while_in_use(addr, options_.listen.bind_retry, [&] { address_ = claim_port(addr); });
  // The first bind picks the port (when asked for 0); the others join it.
  for (std::size_t i = 0; i < (each ? shards : 1); ++i) {
    slots_[i]->listener = open_listener(address_, options_.listen);
    if (i == 0) address_ = local_address_of(slots_[0]->listener.get());
  }
}

ConnectionSpreader::~ConnectionSpreader() = default;

// SO_REUSEPORT lets any process of the same user join a port that is already
// listening, so a second server started on it would quietly take half of
// the first one's connections. A bind without SO_REUSEPORT (SO_REUSEADDR only,
// as the listeners have, so a dead server's TIME_WAIT does not count) fails
// with EADDRINUSE while anyone listens there; it also picks the port when
// asked for 0. The probe never listens, so no client can connect to it.
SocketAddress ConnectionSpreader::claim_port(const SocketAddress& addr) {
  UniqueFd probe(::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe) throw std::system_error(errno, std::generic_category(), "socket");
  const int on = 1;
  ::setsockopt(probe.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (::bind(probe.get(), addr.data(), addr.size()) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind " + addr.to_string());
  }
  return local_address_of(probe.get());
}

UniqueFd ConnectionSpreader::take_listener(std::size_t shard) noexcept {
  return std::move(slots_[shard]->listener);
}

void ConnectionSpreader::attach(std::size_t shard, Sink sink) {
  Slot& slot = *slots_[shard];
  slot.sink = std::move(sink);
  slot.detached = false;
  for (UniqueFd& fd : std::exchange(slot.pending, {})) slot.sink(std::move(fd));
}

void ConnectionSpreader::detach(std::size_t shard) noexcept {
  Slot& slot = *slots_[shard];
  slot.sink = nullptr;
  slot.detached = true;
  slot.pending.clear();  // closes them: no loop has seen these fds
}

void ConnectionSpreader::place(UniqueFd fd) {
  Shard& here = *this_shard();
  if (options_.mode == AcceptMode::reuse_port || slots_.size() == 1) {
    deliver(here.id(), std::move(fd));
    return;
  }
  const std::size_t target = next_++ % slots_.size();
  if (target == here.id()) {
    deliver(target, std::move(fd));
    return;
  }
  here.set().shard(target).post([this, target, fd = std::move(fd)]() mutable { deliver(target, std::move(fd)); });
}

void ConnectionSpreader::deliver(std::size_t shard, UniqueFd fd) {
  Slot& slot = *slots_[shard];
  if (slot.detached) return;  // the shard stopped serving: fd closes here
  slot.count.fetch_add(1, std::memory_order_relaxed);
  if (!slot.sink) {
    slot.pending.push_back(std::move(fd));
    return;
  }
  slot.sink(std::move(fd));
}

}  // namespace duet
