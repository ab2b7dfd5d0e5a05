#include "kv/aof/aof_feed.hpp"

#include "kv/aof/aof_propagation.hpp"

namespace duet::kv {

// Travels feed shard → sink shard → feed shard; owns itself.
struct AofFeed::Chunk final : LoopMessage, DurableWaiter {
  AofFeed* feed = nullptr;
  std::vector<Run> runs;
  std::uint64_t upto = 0;

  static void at_sink(LoopMessage* msg) noexcept {
    auto& chunk = static_cast<Chunk&>(*msg);
    AofSink& sink = chunk.feed->sink_;
    for (const Run& run : chunk.runs) sink.append_from_shard(run.db, run.records);
    chunk.runs.clear();
    if (!sink.must_wait()) return chunk.back();
    chunk.context_ = &chunk;
    chunk.resume_ = [](DurableWaiter* w) noexcept { static_cast<Chunk*>(w->context_)->back(); };
    sink.wait(chunk);
  }
  void back() noexcept {
    run_ = &at_feed;
    KvShard& from = feed->shard_;
    from.cluster().shard(feed->sink_shard_).send(from.index(), *this);
  }
  static void at_feed(LoopMessage* msg) noexcept {
    auto* chunk = static_cast<Chunk*>(msg);
    chunk->feed->acked(chunk->upto);
    delete chunk;
  }
};

AofFeed::AofFeed(KvShard& shard, std::size_t sink_shard, AofSink& sink, Launcher launch)
    : shard_(shard), sink_shard_(sink_shard), sink_(sink), launch_(std::move(launch)) {}

void AofFeed::install() {
  ServerState& state = shard_.state();
  state.set_write_observer(this);
  for (int db = 0; db < Store::db_count; ++db) {
    auto& hook = hooks_[static_cast<std::size_t>(db)];
    hook = DbHook{this, db};
    state.store().db(db).set_expire_hook(
        [](void* context, const Entry& entry) {
          auto* h = static_cast<DbHook*>(context);
          h->self->on_expired(h->db, entry);
        },
        &hook);
  }
  shard_.set_durability(this);
}

void AofFeed::uninstall() {
  publish();
  ServerState& state = shard_.state();
  if (state.write_observer() == this) state.set_write_observer(nullptr);
  for (int db = 0; db < Store::db_count; ++db) state.store().db(db).set_expire_hook(nullptr, nullptr);
  if (shard_.durability() == this) shard_.set_durability(nullptr);
}

void AofFeed::after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) {
  staged_.clear();
  translate_write(cmd, ctx, reply, staged_);
  stage(ctx.client.db, staged_.bytes());
}

void AofFeed::log_block(const LoggedBlock& block) {
  block.emit([this](int db, std::string_view records) { stage(db, records); });
}

void AofFeed::on_expired(int db, const Entry& entry) {
  AofBuffer del;  // not staged_: an expiry can fire while a command is being translated
  expired_record(as_view(entry.key), del);
  stage(db, del.bytes());
}

void AofFeed::stage(int db, std::string_view records) {
  if (records.empty()) return;
  if (runs_.empty() || runs_.back().db != db) runs_.push_back(Run{db, {}});
  runs_.back().records.append(records);
  appended_ += records.size();
}

void AofFeed::publish() {
  if (runs_.empty()) return;
  auto* chunk = new Chunk;
  chunk->feed = this;
  chunk->runs = std::move(runs_);
  chunk->upto = appended_;
  chunk->run_ = &Chunk::at_sink;
  runs_.clear();
  shard_.send(sink_shard_, *chunk);
}

void AofFeed::wait(DurableWaiter& waiter) {
  waiter.target_ = appended_;
  waiter.next_ = waiters_;
  waiters_ = &waiter;
  publish();
}

void AofFeed::forget(DurableWaiter& waiter) noexcept {
  for (DurableWaiter** p = &waiters_; *p != nullptr; p = &(*p)->next_) {
    if (*p == &waiter) {
      *p = waiter.next_;
      return;
    }
  }
}

void AofFeed::acked(std::uint64_t upto) noexcept {
  if (upto > durable_) durable_ = upto;
  DurableWaiter** p = &waiters_;
  while (*p != nullptr) {
    DurableWaiter* w = *p;
    if (w->target_ > durable_) {
      p = &w->next_;
      continue;
    }
    *p = w->next_;  // unlinked before it runs: resume_ may wait again
    w->resume_(w);
  }
}

}  // namespace duet::kv
