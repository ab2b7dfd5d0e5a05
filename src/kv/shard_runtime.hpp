// duet::kv::ShardRuntime — the KV server's edge with --threads N > 1: the
// threads, the listening sockets and the cluster's transport, voice-neutral
// (each driver brings its ShardRunner and its per-shard serving code).
//
// Contract
// - The constructor (on the thread that will be shard 0, before anything is
//   served) opens a ShardSet of rt.threads() shards with the calling thread
//   as shard 0, on --backend with ServerRuntime::open_backend's fallback to
//   epoll; makes the KvCluster send its messages through the set
//   (shard(i).send: no allocation, any thread); binds the TCP port as a
//   ConnectionSpreader in --accept's mode (with bind_listener's retry), and
//   the TLS port and the Unix socket as plain listening sockets that shard 0
//   adopts (take_tls_listener / take_unix_listener): their connections live
//   on shard 0. Logs where it listens. Throws on failure (exit 1).
// - run(main) hosts shard 0 here, posts main to it (it starts every shard's
//   work: spawn_on), and returns once the set has stopped and joined,
//   rethrowing a shard's exception. stop() (any thread, idempotent) asks
//   every shard to stop: each shard's stop_token fires on its own thread, and
//   the shards drain their work before any thread leaves (ShardSet).
// - spreader() is null when there is no plain port (--port 0 with
//   --tls-port). The spreader and the listeners outlive the set.
//
//   kv::ShardRuntime shards(rt, duet::loop_runner());
//   shards.run([&] { for (i...) duet::spawn_on(shards.shard(i), [&, i] { return serve_shard_i(i); }); });
//   rt.on_stopped();
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "duet/io/unique_fd.hpp"
#include "kv/server_runtime.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/runtime/shard_runner.hpp"
#include "duet/runtime/shard_set.hpp"

namespace duet::kv {

class ShardRuntime {
 public:
  ShardRuntime(ServerRuntime& rt, ShardRunner& runner);
  ShardRuntime(const ShardRuntime&) = delete;
  ShardRuntime& operator=(const ShardRuntime&) = delete;
  ~ShardRuntime();

  [[nodiscard]] std::size_t size() const noexcept { return set_->size(); }
  [[nodiscard]] Shard& shard(std::size_t i) const noexcept { return set_->shard(i); }
  [[nodiscard]] ConnectionSpreader* spreader() noexcept { return spreader_ ? &*spreader_ : nullptr; }
  // Shard 0's thread, once each: empty when the port is not configured.
  [[nodiscard]] UniqueFd take_tls_listener() noexcept { return std::move(tls_listener_); }
  [[nodiscard]] UniqueFd take_unix_listener() noexcept { return std::move(unix_listener_); }

  void run(std::function<void()> main) { set_->run(std::move(main)); }
  void stop() noexcept { set_->request_stop(); }

 private:
  void bind_listeners(ServerRuntime& rt);

  // Declared before the set, so destroyed after it: fds handed between
  // shards reference the spreader until the set has stopped.
  std::optional<ConnectionSpreader> spreader_;
  UniqueFd tls_listener_;
  UniqueFd unix_listener_;
  std::optional<ShardSet> set_;
};

}  // namespace duet::kv
