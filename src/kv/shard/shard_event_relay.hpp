// duet::kv::ShardEventRelay — keyspace events to the other shards'
// subscribers (kv/event_relay.hpp's contract), one per KvShard.
//
// Contract
// - others_listen() reads the cluster's listening word (a bit per shard
//   whose pub/sub has any channel or pattern subscription) without this
//   shard's bit: one relaxed load, so with no subscriber anywhere an event
//   builds nothing.
// - send(staged) copies the pairs into one Parcel per other listening
//   shard and sends it; there each pair is published to that shard's
//   subscribers in order, and the parcel comes back home to be reused (its
//   memory is made and freed on this shard's thread, as a job's is). One
//   sender thread and FIFO inboxes keep each shard's events in the order
//   they fired.
// - Its shard's thread only; it must outlive its parcels in flight (the
//   ShardSet drains every message before the cluster goes).
//
//   ShardEventRelay relay(shard);
//   shard.state().set_event_relay(&relay);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kv/event_relay.hpp"

namespace duet::kv {

class KvShard;

class ShardEventRelay final : public EventRelay {
 public:
  explicit ShardEventRelay(KvShard& shard) noexcept : shard_(shard) {}
  ShardEventRelay(const ShardEventRelay&) = delete;
  ShardEventRelay& operator=(const ShardEventRelay&) = delete;
  ~ShardEventRelay();

  [[nodiscard]] bool others_listen() const noexcept override;
  void send(std::string& staged) override;

 private:
  struct Parcel;
  Parcel* take_parcel();

  KvShard& shard_;
  std::vector<Parcel*> spare_;  // parcels back home, kept for reuse
};

}  // namespace duet::kv
