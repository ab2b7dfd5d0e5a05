#include "kv/shard/key_jobs.hpp"

#include <absl/container/inlined_vector.h>

#include <array>
#include <charconv>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/notify.hpp"
#include "kv/reply.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/reply_reader.hpp"
#include "kv/value/value_records.hpp"

namespace duet::kv {
namespace {

// The first part's error, if any part failed (a command that is not whole
// never becomes a job: split_keys; OOM and the like would be the same on
// every part).
const std::string* first_error(std::span<const std::unique_ptr<ShardJob::Part>> parts) {
  for (const auto& p : parts) {
    if (detail::is_error_reply(p->reply)) return &p->reply;
  }
  return nullptr;
}

}  // namespace

// The part's keys' cache misses start together, as a session's pipeline's
// do (Keyspace::prefetch): without it a part's MGET waited for one miss
// after another (a quarter of a --threads 2 MGET profile).
void SplitJob::run_part(KvShard& shard, Part& part) {
  const std::size_t step = merge_ == Merge::ok ? 2 : 1;  // MSET: key value ...
  std::array<std::string_view, Keyspace::max_prefetch> keys;
  std::size_t n = 0;
  for (std::size_t i = 1; i < part.argv.size() && n < keys.size(); i += step) keys[n++] = part.argv[i];
  if (n >= 2) shard.state().store().db(db()).prefetch(std::span(keys).first(n));
  run_argv(shard, part.argv, part.reply);  // into the room split_keys made on the origin
}

void SplitJob::finish(std::string& reply) {
  if (const std::string* error = first_error(parts())) {
    reply = *error;
    return;
  }
  Reply out(reply, resp());
  switch (merge_) {
    case Merge::sum: {
      std::int64_t total = 0;
      for (const auto& p : parts()) total += detail::read_integer(p->reply).value_or(0);
      return out.integer(total);
    }
    case Merge::ok:
      return out.ok();
    case Merge::mget: {  // each part's values in its own key order: read them off in the keys' order
      std::size_t bytes = 16;
      for (const auto& p : parts()) bytes += p->reply.size();
      reply.reserve(bytes);
      absl::InlinedVector<std::size_t, 8> at(parts().size(), 0);  // no allocation for up to 8 parts
      for (std::size_t i = 0; i < parts().size(); ++i) (void)detail::read_header(parts()[i]->reply, at[i], '*');
      out.array(slots.size());
      for (const Slot& s : slots) {
        std::size_t i = 0;
        while (parts()[i]->shard != s.shard) ++i;
        const std::string& r = parts()[i]->reply;
        const std::size_t start = at[i];
        const auto value = detail::read_bulk(r, at[i]);
        if (!value) {
          reply.assign("-ERR internal error merging MGET\r\n");
          return;
        }
        if (*value) {
          reply.append(r, start, at[i] - start);  // a value's bytes are the same in both protocols
        } else {
          out.null();  // RESP2's $-1 from the part, in the connection's protocol
        }
      }
      return;
    }
  }
}

bool MsetnxJob::decide() {
  for (const auto& p : parts()) {
    if (detail::read_integer(p->reply).value_or(1) != 0) return false;
  }
  applied_ = true;
  return true;
}

void MsetnxJob::apply_part(KvShard& shard, Part& part) {
  std::string ignored;
  run_argv(shard, sets[part.shard], ignored);
}

void MsetnxJob::finish(std::string& reply) { Reply(reply, resp()).integer(applied_ ? 1 : 0); }

RenameJob::RenameJob(KvShard& origin, int db, bool nx, std::string from, std::string to, std::size_t from_shard,
                     std::size_t to_shard)
    : ShardJob(origin, db),
      nx_(nx),
      from_(std::move(from)),
      to_(std::move(to)),
      from_shard_(from_shard),
      to_shard_(to_shard) {
  part(from_shard);
  part(to_shard);
}

void RenameJob::run_part(KvShard& shard, Part& part) {
  Keyspace& keys = shard.state().store().db(db());
  if (part.shard == from_shard_) {
    if (Entry* e = keys.find(from_, now())) {
      found_ = true;
      records_ = ValueRecords::encode(e->value, to_);  // built again there: no memory crosses shards
      expire_at_ = keys.expire_at(*e);
    }
  } else {
    target_exists_ = keys.find(to_, now()) != nullptr;  // expired: deleted and logged now, before the job's record
  }
}

bool RenameJob::decide() {
  Reply out(reply_);
  if (!found_) return out.error(detail::err_no_key), false;
  if (nx_ && target_exists_) return out.integer(0), false;
  nx_ ? out.integer(1) : out.ok();
  return true;
}

// What rename_common (commands_keyspace.cpp) does on one shard, split in
// two, at the job's instant: the keys are those run_part looked up then, so
// neither expires here (a lazy expiry's DEL would be logged behind the job's
// RENAME). The expiry is set as it was, not by PEXPIREAT, which deletes a key
// whose time is now (a source at its last alive millisecond). No observer:
// the job logs the RENAME, whole. The rebuild fires nothing; RENAME's events
// fire here, each on its key's shard ("new" and "rename_to" there,
// "rename_from" here), each shard's in Redis's order.
void RenameJob::apply_part(KvShard& shard, Part& part) {
  ServerState& state = shard.state();
  Keyspace& keys = state.store().db(db());
  if (part.shard == to_shard_) {
    keys.erase(to_, now());
    ValueRecords::replay(state, state.store(), db(), records_, now());
    Entry* e = keys.find(to_, now());
    keys.set_expire(*e, expire_at_);
    state.store().touch(db(), to_);  // WATCH
    ++state.stats().commands_processed;  // the RENAME, once
    notify_event(state, db(), notify_new, "new", to_);
    notify_event(state, db(), notify_generic, "rename_to", to_);
  } else {
    keys.erase(from_, now());
    state.store().touch(db(), from_);
    notify_event(state, db(), notify_generic, "rename_from", from_);
  }
}

void RenameJob::finish(std::string& reply) { reply = std::move(reply_); }

}  // namespace duet::kv
