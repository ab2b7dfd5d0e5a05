// ShardDispatch, blocking commands whose keys live elsewhere (BLPOP ...):
// the connection waits as a blocked client while another shard, or several,
// decide its one answer.
//
// - Keys on one shard: a RemoteBlock there (block_remote).
// - Keys on several: a job that cannot block runs first (takes); if it
//   found nothing (the null array a timeout answers), after_blocking_job
//   blocks: BLPOP BRPOP BLMPOP as a MultiBlock over every shard named;
//   BLMOVE/BRPOPLPUSH, whose destination lives on another shard than the
//   source, as a RemoteBlock on the source's shard that only says when the
//   source could serve it (RemoteBlock::source_ready), after which the job
//   runs again and moves the element atomically over both shards, with its
//   one AOF record; nothing moved (a pop won the race) blocks again.
#include <string>
#include <vector>

#include "kv/blocking/block_table.hpp"
#include "kv/blocking/blocking.hpp"
#include "kv/command_table.hpp"
#include "kv/reply.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/multi_block.hpp"
#include "kv/shard/remote_block.hpp"
#include "kv/shard/shard_dispatch.hpp"
#include "kv/shard/shard_job.hpp"
#include "kv/shard/shard_jobs.hpp"

namespace duet::kv {

// The session waits as a blocked client (its timeout, its kept input), with
// a hole for the one answer the keys' shard sends.
void ShardDispatch::block_remote(const Command& cmd, std::span<const std::string_view> argv, std::size_t target) {
  Hole& due = holes_.emplace_back(quiet_);
  due.at = held_.size();
  ++pending_;
  due.block = RemoteBlock::start(*this, shard_, target, cmd, argv, client_.db, client_.resp);
  wait_as_blocked(cmd, argv, due.block, &cancel_remote_block);
}

void ShardDispatch::cancel_remote_block(void* block, bool error) { static_cast<RemoteBlock*>(block)->cancel(error); }

// The connection is a blocked client whose answer comes from elsewhere: its
// timeout (or CLIENT UNBLOCK) calls `cancel` on `remote`.
void ShardDispatch::wait_as_blocked(const Command& cmd, std::span<const std::string_view> argv, void* remote,
                                    void (*cancel)(void* remote, bool error)) {
  if (client_.block == nullptr) client_.block.reset(new BlockState(client_));
  BlockState& b = *client_.block;
  b.request = BlockRequest{};  // a marker: the request lives on the keys' shards
  // The keys' shard answers a bad timeout; here it only bounds the wait.
  std::int64_t ms = 0;
  const std::string_view timeout = cmd.numkeys_at > 0 ? argv[1] : argv.back();
  b.deadline_ms = parse_timeout_ms(timeout, ms) == TimeoutParse::ok ? deadline_after(shard_.state().now_ms(), ms) : 0;
  b.remote = remote;
  b.cancel_remote = cancel;
  b.blocked = true;
  b.answered = false;
}

void ShardDispatch::on_block(RemoteBlock& block) {
  for (Hole& h : holes_) {
    if (h.block != &block || h.ready) continue;
    std::string reply = block.take_reply();
    h.block = nullptr;
    if (reply == RemoteBlock::source_ready && h.blocks_if_empty != nullptr) {
      move_again(h);  // the client stays blocked
    } else {
      end_block(h, std::move(reply));
    }
    break;
  }
  wake();
}

void ShardDispatch::on_multi_block(MultiBlock& block) {
  for (Hole& h : holes_) {
    if (h.multi != &block || h.ready) continue;
    h.multi = nullptr;
    end_block(h, block.take_reply());
    break;
  }
  wake();
}

// The blocked client's answer: its hole is filled, the session told.
void ShardDispatch::end_block(Hole& h, std::string reply) {
  h.reply = std::move(reply);
  h.ready = true;
  h.blocks_if_empty = nullptr;
  h.block_argv.reset();
  --pending_;
  BlockState* b = client_.block.get();
  if (b != nullptr && b->blocked && b->request.kind != BlockRequest::Kind::postpone) {  // not CLIENT PAUSE's
    b->remote = nullptr;
    b->cancel_remote = nullptr;
    b->finish();  // the session collects the hole (Session::collect_pushes)
  }
}

// A blocking command's job over several shards has answered `reply`. True
// when the command blocks (again) or its answer is settled here; false for
// an answer the hole takes as it is (it did not wait).
bool ShardDispatch::after_blocking_job(Hole& h, std::string& reply) {
  const bool empty = Reply::is_null_array(reply);
  const BlockState* b = client_.block.get();
  if (b != nullptr && b->blocked && b->remote == this) {  // move_again's job
    if (!empty) {
      end_block(h, std::move(reply));
    } else if (move_cancel_ == MoveCancel::none) {
      block_on_source(h);  // a pop took the element first
    } else {
      std::string answer;
      if (move_cancel_ == MoveCancel::error) {
        Reply(answer, client_.resp).error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
      } else {
        answer = std::move(reply);  // the timeout's null array
      }
      end_block(h, std::move(answer));
    }
    return true;
  }
  if (!empty) return false;  // answered at once
  if (pops_from_any_key(*h.blocks_if_empty)) {
    block_on_shards(h);
  } else {
    block_on_source(h);
  }
  return true;
}

// BLPOP a b 0 with a and b on two shards found both empty (the job): it
// now waits on both (kv/shard/multi_block.hpp); the hole stays due.
void ShardDispatch::block_on_shards(Hole& h) {
  std::vector<std::string_view> argv;
  h.block_argv->views(argv);
  const Command& cmd = *h.blocks_if_empty;
  h.multi = MultiBlock::start(*this, shard_, cmd, argv, client_.db, client_.resp);
  wait_as_blocked(cmd, argv, h.multi, [](void* mb, bool error) { static_cast<MultiBlock*>(mb)->cancel(error); });
  h.blocks_if_empty = nullptr;
  h.block_argv.reset();
}

// BLMOVE src dst with src and dst on two shards found src empty: it waits on
// src's shard until src could serve it; the deadline set at the first wait
// stands across the waits that follow a lost race.
void ShardDispatch::block_on_source(Hole& h) {
  std::vector<std::string_view> argv;
  h.block_argv->views(argv);
  const Command& cmd = *h.blocks_if_empty;
  const std::size_t source = key_shard(argv[1], shard_.count());
  h.block = RemoteBlock::start_ready(*this, shard_, source, cmd, argv, client_.db, client_.resp);
  move_cancel_ = MoveCancel::none;
  BlockState* b = client_.block.get();
  if (b != nullptr && b->blocked) {
    b->remote = h.block;
    b->cancel_remote = &cancel_remote_block;
  } else {
    wait_as_blocked(cmd, argv, h.block, &cancel_remote_block);
  }
}

// The source can serve the BLMOVE: the job over both shards runs it again,
// as the client, which stays blocked meanwhile (a timeout or CLIENT UNBLOCK
// now only marks what to answer if the job moves nothing).
void ShardDispatch::move_again(Hole& h) {
  std::vector<std::string_view> argv;
  h.block_argv->views(argv);
  std::size_t single = shard_.index();
  std::unique_ptr<ShardJob> job = plan_job(shard_, *h.blocks_if_empty, argv, client_, single);
  if (job == nullptr) {  // the keys span shards, so a job it is; answer as a timeout if not
    std::string answer;
    Reply(answer, client_.resp).null_array();
    return end_block(h, std::move(answer));
  }
  move_cancel_ = MoveCancel::none;
  client_.block->remote = this;
  client_.block->cancel_remote = [](void* self, bool error) {
    static_cast<ShardDispatch*>(self)->move_cancel_ = error ? MoveCancel::error : MoveCancel::timeout;
  };
  h.job = job.get();
  write_job_ = write_job_ || !job->shares_gates();
  jobs_.push_back(job.get());
  job.release()->start(this);
}

}  // namespace duet::kv
