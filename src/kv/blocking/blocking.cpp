#include "kv/blocking/blocking.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kv/blocking/block_claim.hpp"
#include "kv/client_registry.hpp"
#include "kv/detail/numbers.hpp"
#include "kv/detail/run_command.hpp"

namespace duet::kv {

void BlockStateDeleter::operator()(BlockState* b) const noexcept { delete b; }

namespace {

// BZPOPMIN's reply from ZPOPMIN's flat [member, score]: the key in front.
void finish_zpop(BlockState& b, std::string_view key, std::string_view zpop_reply) {
  Reply reply(b.reply, b.client().resp);
  reply.array(3);
  reply.bulk(key);
  b.reply.append(zpop_reply.substr(zpop_reply.find('\n') + 1));
  b.finish();
}

// Runs the client's pop on `key` as a command of its own; its reply, shaped
// as the blocking command answers, waits for the client's driver.
void serve_one(ServerState& state, BlockState& b, const std::string& key, std::int64_t now) {
  ClientInfo& client = b.client();
  const BlockRequest& r = b.request;
  const std::string_view from = r.left ? "left" : "right";
  const std::string count = std::to_string(r.count);
  std::vector<std::string_view> argv;
  switch (r.kind) {
    case BlockRequest::Kind::pop: argv = {r.left ? "lpop" : "rpop", key}; break;
    case BlockRequest::Kind::move: argv = {"lmove", key, r.dest, from, r.to_left ? "left" : "right"}; break;
    case BlockRequest::Kind::mpop: argv = {"lmpop", "1", key, from, "count", count}; break;
    case BlockRequest::Kind::zpop: argv = {r.left ? "zpopmin" : "zpopmax", key}; break;
    case BlockRequest::Kind::zmpop: argv = {"zmpop", "1", key, r.left ? "min" : "max", "count", count}; break;
    case BlockRequest::Kind::wait:
    case BlockRequest::Kind::postpone: return;  // never in a key's queue
  }
  std::string out;
  const int db = client.db;
  client.db = r.db;
  CommandContext ctx{state, client, argv, Reply(out, client.resp), now};
  detail::run_command(*find_command(argv[0]), ctx);
  client.db = db;
  Reply reply(b.reply, client.resp);
  if (r.kind == BlockRequest::Kind::pop && out.front() != '-') {  // BLPOP's [key, value]
    reply.array(2);
    reply.bulk(key);
  } else if (r.kind == BlockRequest::Kind::zpop && out.front() != '-') {  // BZPOPMIN's [key, member, score]
    return finish_zpop(b, key, out);
  }
  b.reply.append(out);
  b.finish();
}

}  // namespace

// Redis's getTimeoutFromObjectOrReply: ms = (long long) ceill(seconds * 1000),
// where a value past long long's range converts (x86) to LLONG_MIN and so
// reads as negative: "inf", "1e400", 9223372036854775807 are refused as
// negative, 9223372036854775.807 is accepted.
TimeoutParse parse_timeout_ms(std::string_view text, std::int64_t& ms) {
  long double seconds = 0;
  if (!detail::parse_long_double(text, seconds)) return TimeoutParse::not_float;
  const long double rounded = std::ceil(seconds * 1000.0L);
  constexpr long double past_range = 9223372036854775808.0L;  // 2^63
  if (rounded < 0 || rounded >= past_range) return TimeoutParse::negative;
  ms = static_cast<std::int64_t>(rounded);
  return TimeoutParse::ok;
}

std::int64_t deadline_after(std::int64_t now, std::int64_t ms) noexcept {
  if (ms == 0) return 0;  // forever
  return ms > std::numeric_limits<std::int64_t>::max() - now ? std::numeric_limits<std::int64_t>::max() : now + ms;
}

bool parse_timeout(CommandContext& ctx, std::string_view text, std::int64_t& deadline) {
  std::int64_t ms = 0;
  switch (parse_timeout_ms(text, ms)) {
    case TimeoutParse::not_float: ctx.reply.error("ERR timeout is not a float or out of range"); return false;
    case TimeoutParse::negative: ctx.reply.error("ERR timeout is negative"); return false;
    case TimeoutParse::ok: break;
  }
  deadline = deadline_after(ctx.now, ms);
  return true;
}

void block_client(CommandContext& ctx, BlockRequest request, std::int64_t deadline) {
  ClientInfo& client = ctx.client;
  if (client.block == nullptr) client.block.reset(new BlockState(client));
  BlockState& b = *client.block;
  request.db = client.db;
  b.request = std::move(request);
  b.deadline_ms = deadline;
  ctx.server.store().blocks().block(b);
}

void serve_blocked(ServerState& state, std::int64_t now) {
  BlockTable& table = state.store().blocks();
  if (table.serving) return;  // a command a serve runs: the loop below goes on
  table.serving = true;
  while (auto key = table.take_ready()) {
    Keyspace& db = state.store().db(key->db);
    for (;;) {
      // The waiters for what the key holds now, first come first served; a
      // list's and a sorted set's waiters may share a key (blocked.c skips
      // the others).
      const Entry* e = db.find(key->name, now);
      if (e == nullptr) break;
      const ValueType type = e->value.type();
      if (type != ValueType::list && type != ValueType::zset) break;
      BlockState* b = table.first(key->db, key->name, type == ValueType::zset);
      if (b == nullptr) break;
      table.unblock(*b);
      if (b->ready_only) [[unlikely]] {
        Reply(b->reply, b->client().resp).simple("READY");
        b->finish();
        break;  // the element stays for that job; the next waiters here are served at the key's next write
      }
      if (b->claim != nullptr && !b->claim->take(b->claim_by)) {  // served by another shard, or gave up
        b->finish();  // answers nothing; the next waiter gets the element
        continue;
      }
      serve_one(state, *b, key->name, now);
    }
  }
  table.serving = false;
}

void postpone_client(ClientInfo& client, std::int64_t until_ms) {
  if (client.block == nullptr) client.block.reset(new BlockState(client));
  BlockState& b = *client.block;
  b.request = BlockRequest{};
  b.request.kind = BlockRequest::Kind::postpone;
  b.deadline_ms = until_ms;
  b.blocked = true;
  b.answered = false;
  b.reply.clear();
}

void resume_postponed(ServerState& state) {
  state.clients().for_each([](ClientInfo& c) {
    if (c.block != nullptr && c.block->blocked && c.block->request.kind == BlockRequest::Kind::postpone) {
      c.block->finish();  // no reply: the driver runs the held command now
    }
  });
}

void timeout_reply(Reply& reply, BlockRequest::Kind kind) {
  switch (kind) {
    case BlockRequest::Kind::wait: return reply.integer(0);  // replicas that acknowledged
    case BlockRequest::Kind::postpone: return;               // no reply: the command runs now
    case BlockRequest::Kind::pop:
    case BlockRequest::Kind::move:  // blocked.c: every list and zset block times out with a null array (BLMOVE too)
    case BlockRequest::Kind::mpop:
    case BlockRequest::Kind::zpop:
    case BlockRequest::Kind::zmpop: return reply.null_array();
  }
}

bool unblock_client(ServerState& state, ClientInfo& client, Unblock how) {
  BlockState* b = client.block.get();
  if (b == nullptr || !b->blocked || b->remote != nullptr) return false;  // a remote block answers from its shard
  if (b->request.kind == BlockRequest::Kind::postpone) {  // CLIENT PAUSE: not unblockable, no reply
    if (how != Unblock::silent) return false;
    b->blocked = false;
    return true;
  }
  state.store().blocks().unblock(*b);
  if (how == Unblock::silent) return true;
  Reply reply(b->reply, client.resp);
  if (how == Unblock::timeout) {
    timeout_reply(reply, b->request.kind);
  } else {
    reply.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
  }
  b->finish();
  return true;
}

}  // namespace duet::kv
