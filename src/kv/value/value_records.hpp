// duet::kv::ValueRecords — a key's value as commands that rebuild it, so a
// value can move to another shard's thread without its memory crossing.
//
// Contract
// - encode(value, key) writes the commands that build `value` under `key`
//   on an absent key: SET key bytes for a string (SETRANGE key 0 bytes for
//   a raw one, so it stays raw), the type's write_records()
//   (RPUSH/HSET/SADD/... batches) for an object. The encoding is private to
//   this file pair (argc, then each argument's length and bytes), read only
//   by replay().
// - replay() runs them through the command table on `store` (the
//   destination shard's, or a job's store of copies) on the calling thread,
//   with no write observer: whoever moves the value logs what the client
//   sent. The key must be absent.
// - Why not hand over the object: its allocations are counted on the thread
//   that made them (counting_allocator.hpp); freed on another they would
//   leave one shard's INFO memory too high for good, and glibc frees another
//   thread's memory through that arena's lock.
//
//   std::string records = ValueRecords::encode(entry.value, "dest");  // source shard
//   ValueRecords::replay(state, state.store(), db, records, now);      // destination shard
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kv/server_state.hpp"
#include "kv/value/value.hpp"

namespace duet::kv {

struct ValueRecords {
  [[nodiscard]] static std::string encode(const Value& value, std::string_view key);
  static void replay(ServerState& state, Store& store, int db, std::string_view records, std::int64_t now);
};

}  // namespace duet::kv
