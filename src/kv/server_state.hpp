// duet::kv::ServerState — everything the sessions of one server share.
//
// Contract
// - Owns the Store, the configuration (flags, CONFIG SET), the statistics for
//   INFO, the client registry and the clock. Sessions hold a reference; the
//   state must outlive every Session created on it.
// - The clock is unix time in ms; tests replace it with set_clock().
// - maxmemory (policy noeviction, the only one): over_maxmemory() says when
//   the store's used memory exceeds it; the Session then refuses commands that
//   may grow memory with Redis's OOM error.
// - timeout: close_idle_clients(now), called from the server's cron, marks
//   every client idle longer than `timeout` seconds as closing and hands its
//   fd to the closer the server's edge installed (which shuts the socket down,
//   so the driver's pending recv ends); tests install a recorder.
// - request_shutdown() (SHUTDOWN) sets a flag and calls the hook a driver
//   installed to wake its accept loop. Drivers read the flag; nothing here does I/O.
// - pubsub(): the channels and patterns (kv/pubsub.hpp); close_client(fd)
//   is how the pub/sub output limit drops a subscriber.
// - Keyspace events (kv/notify.hpp) reach this state's subscribers at once;
//   with the keyspace split over shards, those for other shards' subscribers
//   are staged in staged_events() and handed to the event relay
//   (kv/event_relay.hpp) after each command. Expiries reach notify through
//   each database's event hook, installed here.
// - One thread: the event loop that runs the sessions.
//
//   ServerState state(ServerConfig{.requirepass = "secret"});
//   Session session(state);
//   session.feed("AUTH secret\r\nSET k v\r\n");
#pragma once

#include <array>
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>

#include "kv/aof/write_observer.hpp"
#include "kv/client_registry.hpp"
#include "kv/pubsub.hpp"
#include "kv/store.hpp"

namespace duet::kv {

class EventRelay;

struct ServerConfig {
  std::string bind = "127.0.0.1";
  int port = 6380;
  std::string unixsocket;        // --unixsocket: also listen on this Unix socket ("" = no)
  unsigned unixsocketperm = 0;   // --unixsocketperm: its file's mode (0 = as the umask makes it)
  std::string backend = "io_uring";  // what actually runs (after any fallback)
  std::string voice = "sans-io";     // "stackless" or "stackful" in the executables
  std::size_t maxclients = 10000;
  std::string requirepass;
  std::size_t proto_max_bulk_len = 512ull * 1024 * 1024;
  std::string loglevel = "notice";
  std::size_t client_output_limit = 64ull * 1024 * 1024;    // stop reading past this
  std::size_t client_query_limit = 1024ull * 1024 * 1024;   // client-query-buffer-limit
  int hz = 10;                                              // server cron runs per second, 1..500
  std::int64_t timeout = 0;                                 // close clients idle this many seconds (0: never)
  std::uint64_t maxmemory = 0;                              // past it, cmd_denyoom commands get OOM (0: no limit)
  // Persistence (issue 7, src/kv/aof): --appendonly, --appendfsync, --dir.
  bool appendonly = false;
  std::string appendfsync = "everysec";                     // always | everysec | no
  std::string dir = ".";
  std::string appendfilename = "appendonly.aof";
  int auto_aof_rewrite_percentage = 100;                    // 0 disables automatic rewrites
  std::size_t auto_aof_rewrite_min_size = 64ull * 1024 * 1024;
  // client-output-buffer-limit (Redis's defaults). Only the pubsub class is
  // enforced (kv/pubsub.hpp); normal clients get backpressure instead
  // (client_output_limit) and there are no replicas. The other two classes are
  // kept so CONFIG GET/SET round-trip as in Redis.
  OutputLimit normal_limit{};
  OutputLimit replica_limit{256ull * 1024 * 1024, 64ull * 1024 * 1024, 60};
  OutputLimit pubsub_limit{32ull * 1024 * 1024, 8ull * 1024 * 1024, 60};
  // The types' encoding thresholds (Redis 7.0's names and defaults): a value
  // stays in its compact encoding while within them and converts beyond.
  // list-max-listpack-size: > 0 caps a list node's entries, -1..-5 its bytes
  // at 4/8/16/32/64 KiB.
  int list_max_listpack_size = -2;
  std::int64_t hash_max_listpack_entries = 512;
  std::int64_t hash_max_listpack_value = 64;
  std::int64_t set_max_intset_entries = 512;
  std::int64_t zset_max_listpack_entries = 128;
  std::int64_t zset_max_listpack_value = 64;
  // A HyperLogLog stays sparse up to this many bytes (Redis's default).
  std::int64_t hll_sparse_max_bytes = 3000;
  // notify-keyspace-events: the NotifyClass bits (kv/notify.hpp); 0 = off.
  std::uint32_t notify_keyspace_events = 0;
};

struct ServerStats {
  std::uint64_t connections_received = 0;
  std::uint64_t commands_processed = 0;
  std::uint64_t rejected_connections = 0;
  std::uint64_t keyspace_hits = 0;
  std::uint64_t keyspace_misses = 0;
  std::uint64_t net_input_bytes = 0;
  std::uint64_t net_output_bytes = 0;
};

class ServerState {
 public:
  explicit ServerState(ServerConfig config = {});
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;
  ~ServerState() = default;

  [[nodiscard]] Store& store() noexcept { return store_; }
  [[nodiscard]] ServerConfig& config() noexcept { return config_; }
  [[nodiscard]] const ServerConfig& config() const noexcept { return config_; }
  [[nodiscard]] ServerStats& stats() noexcept { return stats_; }
  [[nodiscard]] ClientRegistry& clients() noexcept { return clients_; }
  [[nodiscard]] PubSub& pubsub() noexcept { return pubsub_; }
  [[nodiscard]] const PubSub& pubsub() const noexcept { return pubsub_; }
  [[nodiscard]] bool requires_auth() const noexcept { return !config_.requirepass.empty(); }

  [[nodiscard]] std::int64_t now_ms() const { return clock_ ? clock_() : system_now_ms(); }
  void set_clock(std::function<std::int64_t()> clock) { clock_ = std::move(clock); }
  [[nodiscard]] static std::int64_t system_now_ms() noexcept;
  [[nodiscard]] std::int64_t start_ms() const noexcept { return start_ms_; }

  void request_shutdown();
  [[nodiscard]] bool shutdown_requested() const noexcept { return shutdown_; }

  // CLIENT PAUSE (networking.c's pauseClients): until `end_ms` the commands
  // of every client (all) or those that write (PUBLISH too) wait. A later or
  // stricter pause extends it; unpause() ends it. pause_end_ms() is 0 when
  // none is in effect: the one check a command pays.
  void pause(std::int64_t end_ms, bool all) noexcept {
    pause_all_ = pause_end_ms_ != 0 ? (pause_all_ || all) : all;
    pause_end_ms_ = std::max(pause_end_ms_, end_ms);
  }
  void unpause() noexcept { pause_end_ms_ = 0; }
  [[nodiscard]] std::int64_t pause_end_ms() const noexcept { return pause_end_ms_; }
  [[nodiscard]] bool pause_all() const noexcept { return pause_all_; }
  void set_shutdown_hook(std::function<void()> hook) { shutdown_hook_ = std::move(hook); }

  // "ip:port" of a client socket's peer (or, peer false, its local end), for
  // CLIENT LIST. The core does no I/O: the server's edge installs the namer;
  // without one (tests) names are empty. Asked only when a command needs them,
  // so a connection does not carry its two address strings around.
  using SocketNamer = std::string (*)(int fd, bool peer);
  void set_socket_namer(SocketNamer namer) noexcept { socket_namer_ = namer; }
  [[nodiscard]] std::string socket_name(int fd, bool peer) const {
    return socket_namer_ != nullptr && fd >= 0 ? socket_namer_(fd, peer) : std::string();
  }

  [[nodiscard]] bool over_maxmemory() const noexcept {
    return config_.maxmemory != 0 && store_.used_memory() > config_.maxmemory / shard_count_;
  }
  // How many shards the keyspace is split over (kv/shard/; 1 without).
  // Each shard's state may hold maxmemory / N, as Dragonfly splits it: no
  // shard reads another's count. SORT refuses patterns that name other keys
  // when N > 1, as Redis Cluster does.
  void set_shard_count(std::size_t shards) noexcept { shard_count_ = shards == 0 ? 1 : shards; }
  [[nodiscard]] std::size_t shard_count() const noexcept { return shard_count_; }

  using ClientCloser = void (*)(int fd);
  void set_client_closer(ClientCloser closer) noexcept { client_closer_ = closer; }
  void close_idle_clients(std::int64_t now_ms);
  // Hands fd to the closer (if any): its driver's pending I/O then ends.
  void close_client(int fd) const {
    if (client_closer_ != nullptr && fd >= 0) client_closer_(fd);
  }

  // Write propagation (the AOF): Session calls it around every cmd_write command.
  [[nodiscard]] WriteObserver* write_observer() const noexcept { return write_observer_; }
  void set_write_observer(WriteObserver* observer) noexcept { write_observer_ = observer; }
  // Where CommandContext::log_instead stages a command's replacement records
  // (one command runs at a time on this state's thread).
  [[nodiscard]] std::string& log_scratch() noexcept { return log_scratch_; }

  // Keyspace events for the subscribers of other shards (kv/event_relay.hpp):
  // null with one shard. notify stages their channel/message pairs in
  // staged_events(); flush_keyspace_events (kv/notify.hpp) hands them over.
  [[nodiscard]] EventRelay* event_relay() const noexcept { return event_relay_; }
  void set_event_relay(EventRelay* relay) noexcept { event_relay_ = relay; }
  [[nodiscard]] std::string& staged_events() noexcept { return staged_events_; }

 private:
  ServerConfig config_;
  ServerStats stats_;
  Store store_;
  ClientRegistry clients_;
  PubSub pubsub_;  // after clients_: subscribers unlink from it as their sessions end
  std::function<std::int64_t()> clock_;
  std::function<void()> shutdown_hook_;
  WriteObserver* write_observer_ = nullptr;
  std::string log_scratch_;
  EventRelay* event_relay_ = nullptr;
  std::string staged_events_;
  // The context of each database's expired-event hook (kv/notify.hpp).
  struct DbRef {
    ServerState* state;
    int db;
  };
  std::array<DbRef, Store::db_count> db_refs_{};
  SocketNamer socket_namer_ = nullptr;
  ClientCloser client_closer_ = nullptr;
  std::size_t shard_count_ = 1;
  std::int64_t idle_check_s_ = 0;  // the second of the last idle-client pass
  std::int64_t start_ms_;
  bool shutdown_ = false;
  std::int64_t pause_end_ms_ = 0;
  bool pause_all_ = false;
};

}  // namespace duet::kv
