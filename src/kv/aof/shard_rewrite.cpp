#include "kv/aof/shard_rewrite.hpp"

#include "kv/aof/aof_propagation.hpp"
#include "kv/shard/shard_job.hpp"

namespace duet::kv {
namespace {

// Every shard's keyspace as records, taken while the job holds every gate.
class RewriteJob final : public ShardJob {
 public:
  RewriteJob(KvShard& origin, ShardedAof& aof) : ShardJob(origin, 0), aof_(aof) {
    for (std::size_t s = 0; s < origin.count(); ++s) part(s);
  }

 private:
  struct Begin final : LoopMessage {
    ShardedAof* aof = nullptr;
    std::string snapshot;
  };

  // Every gate stays held until finish() has sent Begin: a last part released
  // at once (as a read-only job's is) would let that shard's next writes reach
  // shard 0 before Begin, in neither the snapshot nor the capture.
  bool two_phase() const noexcept override { return true; }  // decide(): false, nothing to apply

  void run_part(KvShard& shard, Part& part) override {
    if (shard.durability() != nullptr) shard.durability()->publish();  // its records before the snapshot
    AofBuffer records;
    AofBuffer one;
    for (int db = 0; db < Store::db_count; ++db) {
      Keyspace& keys = shard.state().store().db(db);
      keys.scan(0, SIZE_MAX, 0, [&](const Entry& e) {
        // gone already, at the job's one instant: one snapshot of every shard
        if (e.has_expiry && keys.expire_at(e) < now()) return;
        one.clear();
        state_record(keys, e, one);
        records.append_records(db, one.bytes());
      });
    }
    part.reply = records.take();
  }

  // On the origin, before any gate opens: shard 0 begins the rewrite behind
  // every record published so far and ahead of every later one. On shard 0
  // itself that must happen now: a message to itself would run after this
  // turn, and the gates released below let shard 0's own writes in first.
  void finish(std::string& /*reply*/) override {
    std::size_t size = 0;
    for (const auto& p : parts()) size += p->reply.size();
    std::string snapshot;
    snapshot.reserve(size);
    for (const auto& p : parts()) snapshot.append(p->reply);
    if (origin().index() == 0) return aof_.begin_rewrite(std::move(snapshot));
    auto* begin = new Begin;
    begin->aof = &aof_;
    begin->snapshot = std::move(snapshot);
    begin->run_ = [](LoopMessage* msg) noexcept {
      auto* b = static_cast<Begin*>(msg);
      b->aof->begin_rewrite(std::move(b->snapshot));
      delete b;
    };
    origin().send(0, *begin);  // ahead of the release of shard 0's gate, sent after it
  }

  ShardedAof& aof_;
};

}  // namespace

ShardedAof::ShardedAof(KvCluster& cluster, AofService& service) : cluster_(cluster), service_(service) {}

void ShardedAof::start(std::function<void()> serve) {
  cluster_.redistribute_keys([this, serve = std::move(serve)] {
    install();
    serve();
  });
}

void ShardedAof::install() {
  feeds_.resize(cluster_.size());
  KvShard& sink = cluster_.shard(0);
  sink.set_durability(&service_);
  service_.set_rewrite_ended([this] { rewriting_.store(false, std::memory_order_release); });
  service_.set_rewrite_launcher([this, &sink](std::string& message) { return launch_rewrite(sink, message); });
  for (std::size_t i = 1; i < cluster_.size(); ++i) {
    KvShard& shard = cluster_.shard(i);
    feeds_[i] = std::make_unique<AofFeed>(shard, 0, service_,
                                          [this, &shard](std::string& message) { return launch_rewrite(shard, message); });
    feeds_[i]->install();
  }
}

bool ShardedAof::launch_rewrite(KvShard& from, std::string& message) {
  if (rewriting_.exchange(true, std::memory_order_acq_rel)) {
    message = "ERR Background append only file rewriting already in progress";
    return false;
  }
  (new RewriteJob(from, *this))->start(nullptr);
  message = "Background append only file rewriting started";
  return true;
}

void ShardedAof::begin_rewrite(std::string snapshot) {
  std::string message;
  if (service_.start_rewrite_from(std::move(snapshot), message)) return;  // set_rewrite_ended clears the flag
  service_.log_warning(message);
  rewriting_.store(false, std::memory_order_release);
}

}  // namespace duet::kv
