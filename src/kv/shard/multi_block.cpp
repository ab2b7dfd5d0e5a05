// MultiBlock: the claim decides which part answers; this side only counts
// the parts' answers and passes the one that matters to the connection.
#include "kv/shard/multi_block.hpp"

#include <algorithm>
#include <cstdint>

#include "kv/blocking/block_claim.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/numbers.hpp"
#include "kv/reply.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/remote_block.hpp"
#include "kv/shard/shard_dispatch.hpp"

namespace duet::kv {

bool pops_from_any_key(const Command& cmd) noexcept {
  return cmd.route == ShardRoute::blocking && (cmd.numkeys_at > 0 || cmd.last_key < 0);  // BLMPOP; BLPOP BRPOP
}

MultiBlock::MultiBlock(ShardDispatch& connection, int resp)
    : connection_(&connection), claim_(BlockClaim::make()), resp_(resp) {}

MultiBlock::~MultiBlock() { claim_->release(); }

// Each shard gets the command over its own keys, in the order they were
// named: BLPOP a c 0 / BLMPOP 0 2 a c LEFT COUNT 3.
MultiBlock* MultiBlock::start(ShardDispatch& connection, KvShard& origin, const Command& cmd,
                              std::span<const std::string_view> argv, int db, int resp) {
  auto* mb = new MultiBlock(connection, resp);
  std::size_t first = 1;
  std::size_t end = argv.size() - 1;  // BLPOP/BRPOP: every argument but the timeout
  if (cmd.numkeys_at > 0) {           // checked by the job that ran first
    std::int64_t n = 0;
    (void)detail::parse_i64(argv[static_cast<std::size_t>(cmd.numkeys_at)], n);
    first = static_cast<std::size_t>(cmd.numkeys_at) + 1;
    end = first + static_cast<std::size_t>(n);
  }
  const std::size_t shards = origin.count();
  std::vector<std::vector<std::string_view>> keys(shards);
  for (std::size_t k = first; k < end; ++k) keys[key_shard(argv[k], shards)].push_back(argv[k]);
  for (std::size_t s = 0; s < shards; ++s) {
    if (keys[s].empty()) continue;
    const std::string count = std::to_string(keys[s].size());
    std::vector<std::string_view> part(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(first));
    if (cmd.numkeys_at > 0) part.back() = count;  // the key count sits just before the keys
    part.insert(part.end(), keys[s].begin(), keys[s].end());
    part.insert(part.end(), argv.begin() + static_cast<std::ptrdiff_t>(end), argv.end());
    mb->parts_.push_back(RemoteBlock::start_part(*mb, origin, s, cmd, part, db, resp, *mb->claim_));
  }
  mb->answered_.assign(mb->parts_.size(), false);
  mb->outstanding_ = mb->parts_.size();
  return mb;
}

void MultiBlock::cancel(bool error) {
  if (decided_ || !claim_->withdraw()) return;  // a part won: its answer is on its way
  std::string reply;
  Reply r(reply, resp_);
  if (error) {
    r.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
  } else {
    r.null_array();  // blocked.c: a list block times out with a null array
  }
  decide(std::move(reply));
  free_if_done();
}

void MultiBlock::orphan() {
  connection_ = nullptr;
  if (!decided_) {
    (void)claim_->withdraw();
    decided_ = true;
    orphan_parts();
  }
  free_if_done();
}

void MultiBlock::on_answer(RemoteBlock& part) {
  const auto i = static_cast<std::size_t>(std::find(parts_.begin(), parts_.end(), &part) - parts_.begin());
  answered_[i] = true;  // the part is freed when this returns: never touched again
  --outstanding_;
  std::string reply = part.take_reply();
  // Only the part that took the claim answers anything: an empty answer is a
  // part that lost it, or was orphaned.
  if (!reply.empty() && !decided_) decide(std::move(reply));
  free_if_done();
}

void MultiBlock::decide(std::string reply) {
  decided_ = true;
  reply_ = std::move(reply);
  orphan_parts();
  if (connection_ != nullptr) std::exchange(connection_, nullptr)->on_multi_block(*this);
}

void MultiBlock::orphan_parts() {
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    if (!answered_[i]) parts_[i]->orphan();
  }
}

void MultiBlock::free_if_done() {
  if (decided_ && outstanding_ == 0) delete this;
}

}  // namespace duet::kv
