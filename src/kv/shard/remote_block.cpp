// RemoteBlock: the answer travels back exactly once (back_), whichever of
// the immediate reply, the serve and the cancel comes first on the keys'
// shard; a cancel that comes later finds `answered_` and does nothing.
#include "kv/shard/remote_block.hpp"

#include "kv/blocking/block_claim.hpp"
#include "kv/blocking/blocking.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/numbers.hpp"
#include "kv/detail/run_command.hpp"
#include "kv/reply.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/multi_block.hpp"
#include "kv/shard/shard_dispatch.hpp"

namespace duet::kv {

RemoteBlock::RemoteBlock(ShardDispatch& connection, KvShard& origin, std::size_t target)
    : connection_(&connection), origin_(&origin), target_(target) {
  there_.self = cancel_.self = back_.self = this;
}

RemoteBlock* RemoteBlock::start(ShardDispatch& connection, KvShard& origin, std::size_t target, const Command& cmd,
                                std::span<const std::string_view> argv, int db, int resp) {
  auto* rb = new RemoteBlock(connection, origin, target);
  rb->send_there(cmd, argv, db, resp);
  return rb;
}

RemoteBlock* RemoteBlock::start_ready(ShardDispatch& connection, KvShard& origin, std::size_t target,
                                      const Command& cmd, std::span<const std::string_view> argv, int db, int resp) {
  auto* rb = new RemoteBlock(connection, origin, target);
  rb->client_.block.reset(new BlockState(rb->client_));  // carries ready_only into block_client's state
  rb->client_.block->ready_only = true;
  rb->send_there(cmd, argv, db, resp);
  return rb;
}

RemoteBlock* RemoteBlock::start_part(MultiBlock& group, KvShard& origin, std::size_t target, const Command& cmd,
                                     std::span<const std::string_view> argv, int db, int resp, BlockClaim& claim) {
  auto* rb = new RemoteBlock(group.connection(), origin, target);
  rb->group_ = &group;
  rb->claim_ = &claim;
  claim.retain();
  rb->client_.block.reset(new BlockState(rb->client_));  // carries the claim into block_client's state
  rb->client_.block->claim = &claim;
  rb->client_.block->claim_by = static_cast<unsigned char>(target + 1);
  rb->send_there(cmd, argv, db, resp);
  return rb;
}

void RemoteBlock::send_there(const Command& cmd, std::span<const std::string_view> argv, int db, int resp) {
  command_ = &cmd;
  argv_.assign(argv);
  client_.authenticated = true;
  client_.can_block = true;
  client_.db = db;
  client_.resp = resp;
  there_.run_ = &arrive;
  // Not send_for_reply: the answer may take the block's whole timeout, and a
  // loop that awaits a reply spins before it sleeps.
  origin_->send(target_, there_);
}

RemoteBlock::~RemoteBlock() {
  if (claim_ != nullptr) claim_->release();
}

void RemoteBlock::cancel(bool error) { send_cancel(error ? Cancel::error : Cancel::timeout); }

void RemoteBlock::orphan() {
  connection_ = nullptr;
  send_cancel(Cancel::silent);
}

void RemoteBlock::send_cancel(Cancel how) {
  if (cancel_sent_) return;  // one is on its way: its answer (or the serve's) comes
  cancel_sent_ = true;
  requested_ = how;
  refs_.fetch_add(1, std::memory_order_relaxed);
  cancel_.run_ = &cancelled;
  origin_->send(target_, cancel_);  // after there_: one sender's messages arrive in order
}

// Target thread: the command, once the gate lets a write pass.
void RemoteBlock::arrive(LoopMessage* msg) noexcept {
  RemoteBlock& rb = *static_cast<Message*>(msg)->self;
  KvShard& here = rb.origin_->cluster().shard(rb.target_);
  rb.mode_ = Mode::pass_write;
  rb.resume_ = &resumed;
  if (here.gate().wait(rb)) return rb.run_there();
  // Queued at the gate: the gate's reference, so that a cancel answered
  // meanwhile (the client went) does not free what the gate will resume.
  rb.refs_.fetch_add(1, std::memory_order_relaxed);
}

void RemoteBlock::resumed(GateWaiter* self) noexcept {
  auto* rb = static_cast<RemoteBlock*>(self);
  rb->run_there();
  rb->drop();  // the gate's
}

void RemoteBlock::run_there() {
  ran_ = true;
  if (answered_) return;  // cancelled silently while queued at the gate
  KvShard& here = origin_->cluster().shard(target_);
  std::vector<std::string_view> argv;
  argv_.views(argv);
  const std::int64_t now = here.state().now_ms();
  CommandContext ctx{here.state(), client_, argv, Reply(reply_, client_.resp), now};
  client_.can_block = seen_ == Cancel::none;  // timed out before it ran: it answers as a timeout, at once
  detail::run_command(*command_, ctx);
  if (client_.block != nullptr && client_.block->blocked) {
    client_.block->set_waker([](void* self) noexcept { static_cast<RemoteBlock*>(self)->answer_there(); }, this);
    return;  // served or cancelled later
  }
  if (seen_ == Cancel::error && Reply::is_null_array(reply_)) {  // CLIENT UNBLOCK ... ERROR came first
    reply_.clear();
    Reply(reply_, client_.resp).error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
  }
  answer_there();
}

// Target thread: the served reply (or a timeout's) is the answer.
void RemoteBlock::answer_there() {
  if (answered_) return;
  answered_ = true;
  if (client_.block != nullptr && client_.block->answered) {
    reply_.append(client_.block->reply);
    client_.block->answered = false;
  }
  AofDurability* log = origin_->cluster().shard(target_).durability();
  if (log == nullptr || !log->must_wait()) return go_back();
  durable_.context_ = this;
  durable_.resume_ = [](DurableWaiter* w) noexcept { static_cast<RemoteBlock*>(w->context_)->go_back(); };
  log->wait(durable_);
}

void RemoteBlock::go_back() noexcept {
  back_.run_ = &returned;
  origin_->cluster().shard(target_).send(origin_->index(), back_);
}

void RemoteBlock::cancelled(LoopMessage* msg) noexcept {
  RemoteBlock& rb = *static_cast<Message*>(msg)->self;
  KvShard& here = rb.origin_->cluster().shard(rb.target_);
  rb.seen_ = rb.requested_;  // the message orders the origin's write before this read
  if (!rb.answered_) {
    if (!rb.ran_) {
      if (rb.seen_ == Cancel::silent) rb.answer_there();  // never runs: run_there sees answered_
      // a timeout: run_there runs it without blocking
    } else if (rb.client_.block != nullptr && rb.client_.block->blocked) {
      const bool silent = rb.seen_ == Cancel::silent;
      const Unblock how = silent ? Unblock::silent : rb.seen_ == Cancel::error ? Unblock::error : Unblock::timeout;
      (void)unblock_client(here.state(), rb.client_, how);
      if (silent) rb.answer_there();  // else finish() called answer_there already
    }
  }
  rb.drop();
}

// Origin thread: the one answer.
void RemoteBlock::returned(LoopMessage* msg) noexcept {
  RemoteBlock& rb = *static_cast<Message*>(msg)->self;
  if (rb.group_ != nullptr) {
    rb.group_->on_answer(rb);  // orphaned or not: the group counts its parts' answers
  } else if (rb.connection_ != nullptr) {
    rb.connection_->on_block(rb);
  } else if (rb.reply_ == source_ready) {
    // Told READY, the connection gone: no job will move the element left
    // for it, so the source's shard serves its next waiters now.
    rb.there_.run_ = &serve_again;
    rb.origin_->send(rb.target_, rb.there_);
    return rb.drop();  // the origin's; serve_again drops the answer's
  }
  rb.drop();  // the answer's
  rb.drop();  // the origin's
}

// Like the command itself, only once the gate lets a write pass: a job
// holding it may have copied the source already.
void RemoteBlock::serve_again(LoopMessage* msg) noexcept {
  RemoteBlock& rb = *static_cast<Message*>(msg)->self;
  rb.resume_ = [](GateWaiter* self) noexcept { static_cast<RemoteBlock*>(self)->serve_source(); };
  if (rb.origin_->cluster().shard(rb.target_).gate().wait(rb)) rb.serve_source();
}

void RemoteBlock::serve_source() {
  ServerState& state = origin_->cluster().shard(target_).state();
  state.store().blocks().signal(client_.db, argv_[1]);
  serve_blocked(state, state.now_ms());
  drop();  // the answer's, kept by returned()
}

void RemoteBlock::drop() noexcept {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

bool blocking_target(const KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                     std::size_t& target) {
  std::size_t first = 1;
  std::size_t end = argv.size() - 1;  // BLPOP/BRPOP: every argument but the timeout
  if (cmd.numkeys_at > 0) {           // BLMPOP timeout numkeys key ...
    std::int64_t n = 0;
    const auto at = static_cast<std::size_t>(cmd.numkeys_at);
    if (!detail::parse_i64(argv[at], n) || n < 1 || static_cast<std::uint64_t>(n) > argv.size() - at - 2) {
      target = origin.index();  // malformed: the handler answers the error here
      return true;
    }
    first = at + 1;
    end = first + static_cast<std::size_t>(n);
  } else if (cmd.last_key > 0) {  // BLMOVE, BRPOPLPUSH: source and destination
    end = static_cast<std::size_t>(cmd.last_key) + 1;
  }
  target = key_shard(argv[first], origin.count());
  for (std::size_t i = first + 1; i < end; ++i) {
    if (key_shard(argv[i], origin.count()) != target) return false;
  }
  return true;
}

}  // namespace duet::kv
