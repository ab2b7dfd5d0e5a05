#include "kv/shard/shard_event_relay.hpp"

#include <atomic>

#include "kv/notify.hpp"
#include "kv/shard/kv_cluster.hpp"

namespace duet::kv {

// Travels home shard → listening shard → home shard.
struct ShardEventRelay::Parcel final : LoopMessage {
  ShardEventRelay* home = nullptr;
  std::size_t target = 0;
  std::string pairs;

  static void deliver(LoopMessage* msg) noexcept {
    auto& parcel = static_cast<Parcel&>(*msg);
    KvShard& from = parcel.home->shard_;
    ServerState& there = from.cluster().shard(parcel.target).state();
    for_each_staged(parcel.pairs, [&](std::string_view channel, std::string_view message) {
      there.pubsub().publish(there, channel, message);
    });
    parcel.run_ = &back_home;
    from.cluster().send(from.index(), parcel);
  }
  static void back_home(LoopMessage* msg) noexcept {
    auto* parcel = static_cast<Parcel*>(msg);
    if (parcel->pairs.capacity() > 64 * 1024) std::string().swap(parcel->pairs);  // a burst leaves nothing big behind
    parcel->pairs.clear();
    try {
      parcel->home->spare_.push_back(parcel);
    } catch (...) {
      delete parcel;
    }
  }
};

ShardEventRelay::~ShardEventRelay() {
  for (Parcel* parcel : spare_) delete parcel;
}

bool ShardEventRelay::others_listen() const noexcept {
  const std::uint64_t mine = std::uint64_t{1} << shard_.index();
  return (shard_.cluster().listening().load(std::memory_order_acquire) & ~mine) != 0;
}

ShardEventRelay::Parcel* ShardEventRelay::take_parcel() {
  if (spare_.empty()) {
    auto* parcel = new Parcel;
    parcel->home = this;
    return parcel;
  }
  Parcel* parcel = spare_.back();
  spare_.pop_back();
  return parcel;
}

void ShardEventRelay::send(std::string& staged) {
  std::uint64_t others = shard_.cluster().listening().load(std::memory_order_acquire);
  others &= ~(std::uint64_t{1} << shard_.index());
  for (std::size_t target = 0; others != 0; ++target, others >>= 1) {
    if ((others & 1) == 0) continue;
    Parcel* parcel = take_parcel();
    parcel->target = target;
    parcel->pairs.assign(staged);
    parcel->run_ = &Parcel::deliver;
    shard_.send(target, *parcel);
  }
  staged.clear();
}

}  // namespace duet::kv
