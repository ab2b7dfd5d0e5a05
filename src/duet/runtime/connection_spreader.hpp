// duet::ConnectionSpreader — spreads a server's connections over a ShardSet.
//
// Contract
// - Two ways to spread (AcceptMode, --accept on the command line):
//   reuse_port: every shard has a listening socket of its own on the same
//     port (SO_REUSEPORT); the kernel hashes each new connection (by its
//     4-tuple) to one of them, so accepting scales with the shards and no
//     connection crosses threads. The spread is a hash: few connections may
//     land unevenly.
//   single: shard 0 alone listens and accepts, and hands each accepted socket
//     to the next shard in turn (round robin, itself included) by a posted
//     message; that shard wraps the fd in a stream on its own loop. Exact
//     balance and one accept queue, for one more message per connection.
// - The constructor (any thread, before the shards accept) opens the
//   listening sockets: every one the mode needs, so port 0 picks one port for
//   all and port() tells which. Throws std::system_error (bind, listen).
// - The voices build on it (task/tcp_listener.hpp serve_shard,
//   stackful/tcp_listener.hpp fiber::serve_shard); on each shard's thread:
//   take_listener(shard) once (empty on a shard that does not accept),
//   attach(shard, sink) the function that adopts an fd on this shard, place(fd)
//   for every connection accepted here (it goes to this shard or another),
//   detach(shard) when done: fds arriving later are closed.
// - serve_shard takes an AcceptErrorHandler too, for a server with its own
//   policy when accept fails (a KV server's spare fd on EMFILE): it returns
//   how long the shard waits before accepting again. Without one,
//   default_accept_backoff: 10 ms on EMFILE (do not spin), else at once.
// - connections(i) (any thread) counts connections adopted by shard i.
// - It must outlive the set's work (declare it before the ShardSet, or stop
//   the set first): handed-off fds in flight reference it.
//
//   duet::ConnectionSpreader spreader(2, duet::SocketAddress::any(7000), {.mode = duet::AcceptMode::single});
//   duet::ShardSet set({.shards = 2});
//   for (std::size_t i = 0; i < 2; ++i) duet::spawn_on(set.shard(i), [&] { return duet::serve_shard(spreader, echo); });
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"
#include "duet/io/unique_fd.hpp"
#include "duet/runtime/shard.hpp"

namespace duet {

enum class AcceptMode { reuse_port, single };

// "reuseport" / "reuse_port" / "single" (command lines: --accept); nullopt otherwise.
[[nodiscard]] std::optional<AcceptMode> parse_accept_mode(std::string_view name) noexcept;
[[nodiscard]] std::string_view accept_mode_name(AcceptMode mode) noexcept;

// On an accepting shard's thread: accept on listen_fd failed with error;
// returns how long to wait before the next accept (0: at once).
using AcceptErrorHandler = std::function<std::chrono::milliseconds(std::error_code error, int listen_fd)>;
[[nodiscard]] std::chrono::milliseconds default_accept_backoff(std::error_code error, int listen_fd) noexcept;

struct SpreadOptions {
  AcceptMode mode = AcceptMode::reuse_port;
  ListenOptions listen = {};  // reuse_port is set by the mode; bind_retry covers every socket and the probe
};

class ConnectionSpreader {
 public:
  // Adopts one accepted, non-blocking socket on the calling shard's loop.
  using Sink = std::function<void(UniqueFd fd)>;

  ConnectionSpreader(std::size_t shards, const SocketAddress& addr, SpreadOptions options = {});
  ConnectionSpreader(const ConnectionSpreader&) = delete;
  ConnectionSpreader& operator=(const ConnectionSpreader&) = delete;
  ConnectionSpreader(ConnectionSpreader&&) = delete;
  ConnectionSpreader& operator=(ConnectionSpreader&&) = delete;
  ~ConnectionSpreader();

  [[nodiscard]] AcceptMode mode() const noexcept { return options_.mode; }
  [[nodiscard]] std::size_t size() const noexcept { return slots_.size(); }
  [[nodiscard]] SocketAddress local_address() const noexcept { return address_; }
  [[nodiscard]] std::uint16_t port() const noexcept { return address_.port(); }

  // Shard's thread. The listening socket this shard accepts on, once; empty
  // if it accepts nothing (single mode, shard > 0).
  [[nodiscard]] UniqueFd take_listener(std::size_t shard) noexcept;
  // Shard's thread. Sockets handed to the shard before attach wait for it.
  void attach(std::size_t shard, Sink sink);
  void detach(std::size_t shard) noexcept;
  // An accepting shard's thread: adopt here (reuse_port) or hand to the next
  // shard in turn (single).
  void place(UniqueFd fd);

  [[nodiscard]] std::size_t connections(std::size_t shard) const noexcept {
    return slots_[shard]->count.load(std::memory_order_relaxed);
  }

 private:
  [[nodiscard]] static SocketAddress claim_port(const SocketAddress& addr);
  // One per shard; sink and pending are touched on that shard's thread only.
  struct Slot {
    UniqueFd listener;
    Sink sink;
    std::vector<UniqueFd> pending;  // arrived before attach
    bool detached = false;
    std::atomic<std::size_t> count{0};
  };
  void deliver(std::size_t shard, UniqueFd fd);

  SpreadOptions options_;
  SocketAddress address_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::size_t next_ = 0;  // round robin: the accepting shard's thread only
};

}  // namespace duet
