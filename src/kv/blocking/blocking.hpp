// duet::kv blocking commands' core: block a client, serve the ready keys,
// unblock (Redis's blocked.c, t_list.c's blocking pops).
//
// Contract
// - parse_timeout(ctx, text, deadline): Redis's seconds with decimals; 0 is
//   forever (deadline 0); errors answered as Redis ("timeout is not a float
//   or out of range", "timeout is negative"). parse_timeout_ms and
//   deadline_after are its two halves, for a caller that answers otherwise.
// - block_client(ctx, request, deadline): the client waits (ClientInfo::block);
//   no reply now. Only a Session's own client may block (ClientInfo::can_block);
//   callers answer as a timeout otherwise (inside EXEC, on a copy).
// - serve_blocked(state, now): serves the ready keys' waiters in FIFO order,
//   each by running its pop as a command of its own (LPOP, LMOVE, LMPOP: the
//   same handler, log record, WATCH touch as if the client had sent it), and
//   gives each served client its reply. Run after every command, EXEC and
//   job part that may have pushed (no-op unless a key is ready).
// - unblock_client(state, client, how): out of the table with a timeout's
//   reply (a null array, BLMOVE's too, as blocked.c), an -UNBLOCKED error, or no
//   reply (the client goes away). False when it was not blocked.
// - The state's thread only.
//
//   std::int64_t deadline = 0;
//   if (!parse_timeout(ctx, ctx.argv.back(), deadline)) return;
//   block_client(ctx, std::move(request), deadline);
#pragma once

#include <cstdint>
#include <string_view>

#include "kv/blocking/block_table.hpp"
#include "kv/command_table.hpp"

namespace duet::kv {

enum class Unblock : unsigned char { timeout, error, silent };

enum class TimeoutParse : unsigned char { ok, not_float, negative };
[[nodiscard]] TimeoutParse parse_timeout_ms(std::string_view text, std::int64_t& ms);
[[nodiscard]] std::int64_t deadline_after(std::int64_t now, std::int64_t ms) noexcept;  // saturates; 0 if ms is 0
[[nodiscard]] bool parse_timeout(CommandContext& ctx, std::string_view text, std::int64_t& deadline);
void block_client(CommandContext& ctx, BlockRequest request, std::int64_t deadline);
void serve_blocked(ServerState& state, std::int64_t now);
bool unblock_client(ServerState& state, ClientInfo& client, Unblock how);
// CLIENT PAUSE: the client's next command waits, unanswered, until
// `until_ms` (its driver's timeout) or resume_postponed() (CLIENT UNPAUSE),
// then runs. Not in any key's queue; not a blocked client for INFO.
void postpone_client(ClientInfo& client, std::int64_t until_ms);
void resume_postponed(ServerState& state);
// What a timed-out wait answers: a null array (WAIT: 0).
void timeout_reply(Reply& reply, BlockRequest::Kind kind);

}  // namespace duet::kv
