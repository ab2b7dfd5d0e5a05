// duet::kv::ServerRuntime — everything the two executables share, so that each
// driver is only its voice's accept loop and `recv → session.feed → send`.
//
// Contract
// - main() parses the flags (exit 2 with a message on a bad one, 0 after
//   --help), ignores SIGPIPE, turns SIGINT/SIGTERM into a stop request, runs the
//   driver's body and reports an escaping exception (exit 1).
// - open_backend(open) calls open(backend); if io_uring cannot be had (open
//   throws std::system_error) it logs why and calls open(Backend::epoll).
// - bind_listener(bind) calls bind(listen_address(), options); if that throws
//   EADDRINUSE it logs a warning and calls bind again with
//   ListenOptions::bind_retry = bind_retry_budget (duet retries with a
//   back-off): a server restarted right after a crash must come up (see the
//   .cpp for why the port may be briefly busy). Past the budget, or on any
//   other error, it throws.
// - TLS (--tls-port): tls_context() is the context every TLS connection shares
//   (null without a TLS port; built in the constructor, so a bad certificate
//   stops the start with exit 1); bind_tls_listener(bind) is bind_listener for
//   the TLS port; plain_port() is false when --port 0 came with --tls-port
//   (Redis's way to serve TLS only); a TLS client gets tls_handshake_timeout,
//   and a failed handshake is logged (verbose) by on_tls_error; a TLS session
//   ends with close_notify, sent within tls_close_timeout.
// - Shards (--threads N): the keyspace is a KvCluster of N shards (cluster());
//   with N == 1, state() is its only shard's state and sessions take no
//   shard (no routing, no cost), so the server runs exactly as before. With
//   N > 1 the drivers run shard i's sessions and cron on shard i's thread
//   (kv/shard_runtime.hpp) and pass i to the calls below that take a shard;
//   those calls are then safe from every shard's thread at once: what is per
//   server (the connection count, the spare fd, the stop flag) is atomic.
//   --appendonly yes with N > 1 is refused (constructor: runtime_error, exit 1).
// - admit(fd, shard) enforces --maxclients over all shards: past it, it writes
//   Redis's error to fd and returns false (the caller closes fd); every
//   admitted connection must end with on_disconnect().
// - bind_unix_listener(bind): the same for --unixsocket, beside the TCP port.
// - on_accept_error() handles accept failures without spinning: on EMFILE/ENFILE
//   it frees a reserved fd to accept and close the pending connection (so the
//   client is told rather than left hanging) and asks for a short back-off.
// - tick(shard) is the timer body: one active-expiry cycle and the idle-client
//   check (CONFIG SET timeout) on that shard's state; returns true once a
//   signal or a SHUTDOWN on any shard asked the server to stop. Call it every
//   tick_interval(shard) (1000 / hz ms, read anew each time, so CONFIG SET hz
//   changes the rate from the next sleep). on_stopped() once, after every
//   shard has stopped.
// - Everything else: the thread that runs main() (shard 0's), before the
//   shards start or after they stop; the signal handler is an atomic store.
//
//   return ServerRuntime::main(argc, argv, "stackless", [](ServerRuntime& rt) {
//     std::optional<EventLoop> loop;
//     rt.open_backend([&](Backend b) { loop.emplace(b); });
//     rt.bind_listener([&](const SocketAddress& a, const ListenOptions& o) {
//       listener.emplace(TcpListener::bind(*loop, a, o));
//     });
//     ...accept loop, ticker...
//     return 0;
//   });
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>
#include <system_error>
#include <vector>

#include "duet/io/backend.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"
#include "duet/io/unix_socket_file.hpp"
#include "kv/aof/aof_service.hpp"
#include "kv/aof/shard_rewrite.hpp"
#include "kv/server_log.hpp"
#include "kv/server_options.hpp"
#include "kv/server_state.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "duet/tls/tls_context.hpp"

namespace duet::kv {

class ServerRuntime {
 public:
  using Body = std::function<int(ServerRuntime&)>;
  static int main(int argc, char** argv, std::string_view voice, const Body& body);

  explicit ServerRuntime(ServerOptions options);
  ServerRuntime(const ServerRuntime&) = delete;
  ServerRuntime& operator=(const ServerRuntime&) = delete;
  ~ServerRuntime();

  [[nodiscard]] ServerState& state() noexcept { return cluster_.shard(0).state(); }
  [[nodiscard]] KvCluster& cluster() noexcept { return cluster_; }
  [[nodiscard]] std::size_t threads() const noexcept { return options_.threads; }
  [[nodiscard]] AcceptMode accept_mode() const noexcept { return options_.accept; }
  [[nodiscard]] const ServerLog& log() const noexcept { return log_; }

  void open_backend(const std::function<void(Backend)>& open);
  [[nodiscard]] SocketAddress listen_address() const;  // throws std::invalid_argument on a bad --bind
  static constexpr std::chrono::milliseconds bind_retry_budget{2000};
  using BindListener = std::function<void(const SocketAddress&, const ListenOptions&)>;
  void bind_listener(const BindListener& bind);
  void on_listening(const SocketAddress& local);
  // Runs at the end of on_listening, on the driver's thread: how duet-kv-sim
  // starts its simulated clients on the driver's own loop. With several
  // threads the listeners are bound before shard 0's loop runs: the hook
  // then runs on shard 0, once its loop is up (start_sharded_aof).
  void set_on_listening(std::function<void()> hook) { on_listening_hook_ = std::move(hook); }
  // Runs once every connection and listener is closed and the AOF is
  // written (on shard 0, its loop still running; or first in on_stopped):
  // how duet-kv-sim learns the server has stopped serving.
  void set_on_serving_ended(std::function<void()> hook) { on_serving_ended_hook_ = std::move(hook); }
  void serving_ended();
  // Runs in on_stopped (after serving_ended), while the driver's loop is still alive: there
  // duet-kv-sim lets its clients finish before the loop goes.
  void set_on_stopped(std::function<void()> hook) { on_stopped_hook_ = std::move(hook); }
  // As a SHUTDOWN would: every shard's next tick stops the server. Any thread.
  void request_stop() noexcept { stop_.store(true, std::memory_order_relaxed); }
  // --unixsocket (Redis's unixsocket): calls bind(address, options) once, with
  // --unixsocketperm as ListenOptions::unix_mode, and logs where it listens;
  // returns false, calling nothing, when the flag is not set. A failure throws
  // "Failed opening Unix socket: ..." (exit 1, as redis-server; a live
  // server's socket at the path is never taken: io/unix_socket_file.hpp).
  // on_stopped() removes the socket file, as Redis does at shutdown, but only
  // while the path still names the one this bind made.
  bool bind_unix_listener(const std::function<void(const SocketAddress&, const ListenOptions&)>& bind);

  [[nodiscard]] const TlsContext* tls_context() const noexcept { return tls_.get(); }
  [[nodiscard]] bool plain_port() const noexcept { return !tls_ || options_.config.port != 0; }
  void bind_tls_listener(const BindListener& bind);
  void on_listening_tls(const SocketAddress& local);
  void on_tls_error(std::error_code error, const std::string& detail);  // a failed handshake, logged at verbose
  static constexpr std::chrono::seconds tls_handshake_timeout{10};
  static constexpr std::chrono::seconds tls_close_timeout{1};  // for close_notify: a client that never reads
  // --appendonly yes: loads the AOF (throws on a corrupt one) and logs writes
  // from now on; drivers call it on their loop before serving. aof() is then
  // non-null; on_stopped() flushes and fsyncs it while the loop is still alive.
  void start_aof(EventLoop& loop);
  [[nodiscard]] AofService* aof() noexcept { return aof_.get(); }
  // --threads N > 1 (kv/aof/shard_rewrite.hpp): one file, on shard 0.
  // start_sharded_aof(loop, serve) on shard 0, every shard's loop running
  // and none serving yet: loads the file into shard 0, spreads the keys,
  // gives every other shard a feed, then calls serve() (at once without AOF). At the stop, each shard i > 0 calls stop_shard_aof(i)
  // once its connections are gone (its feed publishes what it holds and tells
  // shard 0); shard 0 waits for feeds_stopped(), then stop_aof() flushes and
  // fsyncs while its loop is alive.
  void start_sharded_aof(EventLoop& loop, std::function<void()> serve);
  void stop_shard_aof(std::size_t shard);
  [[nodiscard]] bool feeds_stopped() const noexcept { return !sharded_aof_ || feeds_stopped_ + 1 >= cluster_.size(); }
  void stop_aof() {
    if (aof_) aof_->shutdown();
  }
  // What the calling shard's connections wait on before they send (null: no AOF).
  [[nodiscard]] AofDurability* durability() noexcept;

  [[nodiscard]] bool admit(int fd, std::size_t shard = 0);
  void on_disconnect() noexcept { connections_.fetch_sub(1, std::memory_order_relaxed); }
  [[nodiscard]] std::chrono::milliseconds on_accept_error(std::error_code error, int listen_fd, std::size_t shard = 0);

  [[nodiscard]] bool tick(std::size_t shard = 0);
  [[nodiscard]] std::chrono::milliseconds tick_interval(std::size_t shard = 0) noexcept;
  void on_stopped();

 private:
  ServerOptions options_;
  KvCluster cluster_;
  ServerLog log_;  // shard 0's loglevel: for shard 0's thread (other shards log through their own)
  std::atomic<std::size_t> connections_{0};  // over every shard, for --maxclients
  std::atomic<bool> stop_{false};            // SHUTDOWN on any shard
  std::function<void()> on_listening_hook_;
  bool listening_hook_due_ = false;  // on_listening ran before any loop: run the hook on shard 0
  std::function<void()> on_serving_ended_hook_;
  std::function<void()> on_stopped_hook_;
  [[nodiscard]] std::string describe();
  void bind_with_retry(const SocketAddress& address, const BindListener& bind);

  std::unique_ptr<TlsContext> tls_;
  UnixSocketFile unix_file_;  // --unixsocket's file, for on_stopped
  std::atomic<int> spare_fd_{-1};  // reserved for the EMFILE dance; a shard takes it by exchange
  std::atomic<std::int64_t> last_emfile_log_ms_{0};
  struct FeedStopped final : LoopMessage {
    ServerRuntime* rt = nullptr;
  };
  std::unique_ptr<FeedStopped[]> feed_stopped_msgs_;  // one per shard
  std::size_t feeds_stopped_ = 0;  // shard 0's thread
  std::unique_ptr<AofService> aof_;  // last two: go before the state they observe
  std::unique_ptr<ShardedAof> sharded_aof_;
};

}  // namespace duet::kv
