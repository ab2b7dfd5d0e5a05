// ConnectionSpreader: the listening sockets of a sharded server and the
// hand-off of accepted sockets between shards. An fd crosses threads only as
// an int inside a posted message: the accepting loop never registered it
// (epoll learns an fd at its first wait, io_uring holds no per-fd state), so
// the target's loop can adopt it as if it had accepted it itself.
#include "runtime/connection_spreader.hpp"

#include <utility>

#include "runtime/shard_set.hpp"

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
  // The first bind picks the port (when asked for 0); the others join it.
  for (std::size_t i = 0; i < (each ? shards : 1); ++i) {
    slots_[i]->listener = open_listener(address_, options_.listen);
    if (i == 0) address_ = local_address_of(slots_[0]->listener.get());
  }
}

ConnectionSpreader::~ConnectionSpreader() = default;

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
