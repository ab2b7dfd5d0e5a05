// duet::kv::PubSub — the server's channels and patterns, and the messages
// pushed to subscribers (Redis's pubsub.c without the sockets).
//
// Contract
// - PubSub (one per ServerState) maps channel -> subscribers, pattern ->
//   subscribers and shard channel -> subscribers (Redis 7's sharded pub/sub,
//   a namespace of its own: SSUBSCRIBE / SPUBLISH; one shard here). A Subscriber is one client's side: its channels, its patterns
//   and its queue of pushed messages. A client gets one on its first
//   (P)SUBSCRIBE (ClientInfo::subscriber) and keeps it until it disconnects;
//   destroying it unlinks it from every channel and pattern at once, so the
//   registry never holds a dangling pointer.
// - publish() formats each message once per PUBLISH (and once per matching
//   pattern) and appends the bytes to every receiver's queue(): no allocation
//   per subscriber once the queues have grown. It never touches a receiver's
//   reply buffer, which its driver may be sending from (a push that moved
//   those bytes would be a use-after-free): Session::collect_pushes() moves the
//   queue into the reply buffer between sends.
// - Output limit (client-output-buffer-limit pubsub): after each push the
//   receiver's unsent bytes (reply buffer + queue) are checked against the
//   hard limit (over it: drop at once) and the soft limit (over it for
//   soft_seconds: drop). A dropped subscriber is marked closing, its queue is
//   freed, further pushes skip it, the server's client closer shuts its socket
//   (ending a send stuck on a reader that stopped reading) and its waker runs.
// - The waker (set by the driver) runs when the queue goes from empty to
//   non-empty and when the subscriber is dropped: it must only note the fact
//   (set an Event), never run commands or I/O.
// - set_listening(word, bit): with the keyspace split over shards, the bit
//   is set in the shared word while this registry has any channel or
//   pattern subscription, so a shard's keyspace events (kv/notify.hpp) know
//   at one load whether any other shard would receive them.
// - One thread: the one running the server state.
//
//   PubSub& ps = state.pubsub();
//   Subscriber& me = ps.subscriber_of(client);      // created on first use
//   me.subscribe("news");                           // -> 1 (subscriptions)
//   int n = ps.publish(state, "news", "hi");        // me.queue() holds the message
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "kv/client_registry.hpp"
#include "kv/detail/key_hash.hpp"

namespace duet::kv {

class PubSub;
class ServerState;

template <typename V>
using NameMap = absl::flat_hash_map<std::string, V, NameHash, NameEq>;
using NameSet = absl::flat_hash_set<std::string, NameHash, NameEq>;

// One class of client-output-buffer-limit: bytes (0 = none) and seconds.
struct OutputLimit {
  std::uint64_t hard = 0;
  std::uint64_t soft = 0;
  std::int64_t soft_seconds = 0;
};

class Subscriber {
 public:
  using Waker = void (*)(void* context) noexcept;

  Subscriber(PubSub& registry, ClientInfo& client) noexcept : registry_(registry), client_(client) {}
  Subscriber(const Subscriber&) = delete;
  Subscriber& operator=(const Subscriber&) = delete;
  ~Subscriber();

  // Each returns whether the subscription set changed.
  bool subscribe(std::string_view channel);
  bool unsubscribe(std::string_view channel);
  bool psubscribe(std::string_view pattern);
  bool punsubscribe(std::string_view pattern);
  bool ssubscribe(std::string_view channel);
  bool sunsubscribe(std::string_view channel);
  void unsubscribe_all();  // RESET: leaves every channel and pattern, says nothing

  [[nodiscard]] std::size_t channel_count() const noexcept { return channels_.size(); }
  [[nodiscard]] std::size_t pattern_count() const noexcept { return patterns_.size(); }
  [[nodiscard]] std::size_t shard_channel_count() const noexcept { return shard_channels_.size(); }
  // Redis's CLIENT_PUBSUB flag: the RESP2 "subscribed context".
  [[nodiscard]] bool subscribed() const noexcept {
    return !channels_.empty() || !patterns_.empty() || !shard_channels_.empty();
  }
  [[nodiscard]] std::vector<std::string> channels() const { return {channels_.begin(), channels_.end()}; }
  [[nodiscard]] std::vector<std::string> shard_channels() const {
    return {shard_channels_.begin(), shard_channels_.end()};
  }
  [[nodiscard]] const std::vector<std::string>& patterns() const noexcept { return patterns_; }

  [[nodiscard]] std::string& queue() noexcept { return queue_; }
  void set_waker(Waker waker, void* context) noexcept { waker_ = waker, waker_context_ = context; }

 private:
  friend class PubSub;
  void push(std::string_view bytes, ServerState& server, std::int64_t now_ms);
  void drop(ServerState& server);
  void wake() noexcept {
    if (waker_ != nullptr) waker_(waker_context_);
  }

  PubSub& registry_;
  ClientInfo& client_;
  NameSet channels_;
  NameSet shard_channels_;
  std::vector<std::string> patterns_;  // in subscription order, as Redis's list
  std::string queue_;                  // pushed messages the driver has not taken yet
  std::int64_t soft_since_ms_ = -1;    // when the soft limit was first exceeded (-1: it is not)
  Waker waker_ = nullptr;
  void* waker_context_ = nullptr;
};

class PubSub {
 public:
  PubSub() = default;
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;
  ~PubSub() = default;

  [[nodiscard]] Subscriber& subscriber_of(ClientInfo& client);

  // PUBLISH: the number of receivers (a client matched by a channel and a
  // pattern counts twice, as in Redis).
  std::int64_t publish(ServerState& server, std::string_view channel, std::string_view message);
  // SPUBLISH: to the shard channel's subscribers only, as "smessage".
  std::int64_t spublish(ServerState& server, std::string_view channel, std::string_view message);

  [[nodiscard]] std::size_t channel_count() const noexcept { return channels_.size(); }
  [[nodiscard]] std::size_t pattern_count() const noexcept { return patterns_.size(); }
  [[nodiscard]] std::size_t shard_channel_count() const noexcept { return shard_channels_.size(); }
  [[nodiscard]] std::size_t subscribers_of(std::string_view channel, bool shard = false) const noexcept;
  // PUBSUB (SHARD)CHANNELS: active channels matching `pattern` (every one when
  // `all`), unsorted.
  [[nodiscard]] std::vector<std::string_view> active_channels(std::string_view pattern, bool all,
                                                              bool shard = false) const;
  // Every pattern subscribed to, unsorted.
  [[nodiscard]] std::vector<std::string_view> active_patterns() const;

  void set_listening(std::atomic<std::uint64_t>* word, std::uint64_t bit) noexcept {
    listening_word_ = word;
    listening_bit_ = bit;
  }

 private:
  friend class Subscriber;
  using Subscribers = std::vector<Subscriber*>;
  static void unlink(NameMap<Subscribers>& map, std::string_view key, Subscriber* s);
  static bool add(NameSet& mine, NameMap<Subscribers>& map, std::string_view name, Subscriber* s);
  static bool remove(NameSet& mine, NameMap<Subscribers>& map, std::string_view name, Subscriber* s);
  void format(std::string_view kind, std::string_view channel, std::string_view message);
  void deliver(ServerState& server, const Subscribers& to, std::int64_t now, std::int64_t& receivers);
  void note_listening() noexcept;

  NameMap<Subscribers> channels_;
  NameMap<Subscribers> patterns_;
  NameMap<Subscribers> shard_channels_;
  std::string message_;  // the message being published, formatted once
  std::atomic<std::uint64_t>* listening_word_ = nullptr;
  std::uint64_t listening_bit_ = 0;
  bool listening_ = false;
};

}  // namespace duet::kv
