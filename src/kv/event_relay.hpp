// duet::kv::EventRelay — how a shard's keyspace events reach the subscribers
// of the other shards (--threads N): notify (kv/notify.hpp) publishes an
// event to its own shard's subscribers at once and, when another shard has
// any subscriber at all, stages the channel/message pair for the others;
// after each command the staged pairs leave in one message per listening
// shard (kv/shard/shard_event_relay.hpp), which publishes them there in the
// order they fired.
//
// Contract
// - others_listen(): some other shard has a channel or pattern subscription
//   now (one relaxed load). False means notify builds nothing for them.
// - send(staged) takes the pairs staged so far (kv/notify.hpp's format) and
//   leaves `staged` empty; it never waits.
// - ServerState holds at most one (set_event_relay); null with one shard.
//   The relay's own shard's thread only.
//
//   if (relay->others_listen()) stage_event(state.staged_events(), channel, message);
//   relay->send(state.staged_events());   // after the command
#pragma once

#include <string>

namespace duet::kv {

class EventRelay {
 public:
  [[nodiscard]] virtual bool others_listen() const noexcept = 0;
  virtual void send(std::string& staged) = 0;

 protected:
  EventRelay() = default;
  EventRelay(const EventRelay&) = default;
  EventRelay& operator=(const EventRelay&) = default;
  ~EventRelay() = default;
};

}  // namespace duet::kv
