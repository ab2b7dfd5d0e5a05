// duet::kv::ClientRegistry — the connected clients, for CLIENT LIST and INFO.
//
// Contract
// - ClientInfo is the per-connection state commands may read and change (db,
//   name, auth, close flag, subscriptions); its Session owns it and registers it for its whole
//   life, so the registry holds only intrusive links, never ownership.
// - Ids are unique and increasing (CLIENT ID), starting at 1.
// - One thread (the event loop's), like the rest of the server state.
//
//   ClientInfo info;
//   registry.add(info);       // info.id assigned
//   registry.for_each([](const ClientInfo& c) { ... });
//   registry.remove(info);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace duet::kv {

class Subscriber;  // kv/pubsub.hpp
struct SubscriberDeleter {
  void operator()(Subscriber* s) const noexcept;
};
class BlockState;  // kv/blocking/block_table.hpp
struct BlockStateDeleter {
  void operator()(BlockState* b) const noexcept;
};
class MultiState;  // kv/multi/multi_state.hpp
struct MultiStateDeleter {
  void operator()(MultiState* m) const noexcept;
};

struct ClientInfo {
  std::uint64_t id = 0;
  std::string name;
  int fd = -1;  // the socket (-1 in tests); ServerState::socket_name gives its addresses
  int db = 0;
  int resp = 2;  // the protocol, 2 or 3 (HELLO); Reply writes in it
  bool authenticated = false;
  bool close_after_reply = false;
  std::int64_t created_ms = 0;
  std::int64_t last_active_ms = 0;
  std::string_view last_command = "NULL";  // points at the command table's name
  std::size_t query_buffer = 0;            // bytes buffered, not yet parsed
  std::size_t output_buffer = 0;           // reply bytes not yet sent
  // Its pub/sub side, from the first (P)SUBSCRIBE on (kv/pubsub.hpp); null for
  // a client that never subscribed, so those pay nothing for pub/sub.
  std::unique_ptr<Subscriber, SubscriberDeleter> subscriber;
  // MULTI and WATCH (kv/multi/multi_state.hpp), from the first of them on.
  std::unique_ptr<MultiState, MultiStateDeleter> multi;
  // BLPOP and the other blocking commands (kv/blocking/), from the first block on.
  std::unique_ptr<BlockState, BlockStateDeleter> block;
  // A Session's own client, which may block; not the copies that batches,
  // jobs and the AOF loader run commands as.
  bool can_block = false;
  // CLIENT REPLY OFF / SKIP (Session drops the replies), CLIENT NO-EVICT.
  bool reply_off = false;
  bool reply_skip = false;  // the next command's reply
  bool no_evict = false;

  ClientInfo* prev_ = nullptr;  // registry links
  ClientInfo* next_ = nullptr;
};

class ClientRegistry {
 public:
  void add(ClientInfo& client) noexcept;
  // Ids first, first + step, ...: with the keyspace split over N shards each
  // shard's registry numbers its clients (index + 1) + k * N, so CLIENT ID and
  // CLIENT KILL ID stay unique across the server.
  void number_ids(std::uint64_t first, std::uint64_t step) noexcept {
    next_id_ = first;
    id_step_ = step;
  }
  void remove(ClientInfo& client) noexcept;
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const ClientInfo* c = head_; c != nullptr; c = c->next_) visit(*c);
  }
  template <class Visit>
  void for_each(Visit&& visit) {
    for (ClientInfo* c = head_; c != nullptr; c = c->next_) visit(*c);
  }

 private:
  ClientInfo* head_ = nullptr;
  ClientInfo* tail_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t next_id_ = 1;
  std::uint64_t id_step_ = 1;
};

inline void ClientRegistry::add(ClientInfo& client) noexcept {
  client.id = next_id_;
  next_id_ += id_step_;
  client.prev_ = tail_;
  client.next_ = nullptr;
  (tail_ != nullptr ? tail_->next_ : head_) = &client;
  tail_ = &client;
  ++size_;
}

inline void ClientRegistry::remove(ClientInfo& client) noexcept {
  (client.prev_ != nullptr ? client.prev_->next_ : head_) = client.next_;
  (client.next_ != nullptr ? client.next_->prev_ : tail_) = client.prev_;
  client.prev_ = client.next_ = nullptr;
  --size_;
}

}  // namespace duet::kv
