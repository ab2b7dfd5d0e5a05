// duet::kv::translate_write — what a write command that just ran puts in the
// append-only file: its deterministic form, as Redis 7 propagates it.
//
// Contract
// - Called after the handler ran, with the reply it appended. Appends zero or
//   more records (no SELECT: they all belong to ctx.client.db) to `out`.
// - Nothing is logged for an error reply or a reply that says nothing changed
//   (a nil SET NX, DEL/EXPIRE/... answering :0).
// - Relative or clock-dependent forms become absolute, read back from the key's
//   state after the command: SET EX/PX/EXAT, SETEX, PSETEX → SET k v PXAT t;
//   EXPIRE/PEXPIRE/EXPIREAT → PEXPIREAT k t (or DEL k if the expiry deleted it);
//   GETEX → PEXPIREAT/PERSIST/DEL; INCRBYFLOAT → SET k v KEEPTTL; GETDEL → DEL;
//   MOD (not a Redis command) → SET k v [PXAT t]. Anything else is logged as sent,
//   so a command added later is logged verbatim (deterministic by default).
// - expired_record(): the DEL Redis propagates when a key expires.
// - Pure over the store; one thread.
//
//   AofBuffer staged;
//   translate_write(*cmd, ctx, reply, staged);
//   file_buffer.append_records(ctx.client.db, staged.bytes());
#pragma once

#include <string_view>

#include "kv/aof/aof_buffer.hpp"
#include "kv/command_table.hpp"

namespace duet::kv {

void translate_write(const Command& cmd, CommandContext& ctx, std::string_view reply, AofBuffer& out);
// Whether a write command changed anything, by the same rules that decide
// whether it is logged (WATCH's "touched": kv/multi/).
[[nodiscard]] bool write_took_effect(const Command& cmd, const CommandContext& ctx, std::string_view reply);
void expired_record(std::string_view key, AofBuffer& out);
// How a key's current state is written (rewrite, MOD, ...): SET key value
// [PXAT t] for a string, the type's own records and PEXPIREAT for the others.
void state_record(const Keyspace& db, const Entry& entry, AofBuffer& out);

}  // namespace duet::kv
