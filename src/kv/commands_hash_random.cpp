// HRANDFIELD and HSCAN: the hash commands that answer a part of a hash,
// picked at random or by cursor (Redis 7.0's hrandfieldWithCountCommand and
// scanGenericCommand).
#include <absl/container/flat_hash_set.h>

#include <string>
#include <utility>
#include <vector>

#include "kv/commands_hash.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/glob.hpp"

namespace duet::kv::hash_cmd {
namespace {

using detail::equals_ci;
using Record = HashObject::Record;

// A negative count repeats picks, so its reply is not bounded by the hash:
// Redis writes them all (HRANDFIELD k -2147483648 is gigabytes). duet answers
// up to this many and refuses more rather than build such a reply.
constexpr std::int64_t max_repeated_picks = std::int64_t{1} << 22;
constexpr std::int64_t long_max = INT64_MAX;

// RESP3 replies WITHVALUES as an array of [field, value] pairs, RESP2 flat.
template <class R>
bool speaks_resp3(const R& reply) {
  if constexpr (requires { reply.protocol(); }) {
    return reply.protocol() == 3;
  } else {
    return false;
  }
}

struct Picker {
  CommandContext& ctx;
  bool withvalues;
  bool resp3;

  void header(std::int64_t picks) {
    ctx.reply.array(static_cast<std::size_t>(withvalues && !resp3 ? picks * 2 : picks));
  }
  void put(Record r) {
    if (withvalues && resp3) ctx.reply.array(2);
    ctx.reply.bulk(r.key);
    if (withvalues) ctx.reply.bulk(r.value);
  }
  std::uint64_t bits() { return ctx.server.store().next_random(); }
};

// count distinct fields, count < size: a partial shuffle of all of them when
// count is close to size (Redis's CASE 3), else random picks with rejection
// of repeats (CASE 4).
void pick_distinct(Picker& pick, const HashObject& h, std::size_t count) {
  const std::size_t size = h.size();
  if (count * 3 > size) {
    std::vector<Record> all;
    all.reserve(size);
    h.for_each([&](Record r) { all.push_back(r); });
    for (std::size_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + pick.bits() % (size - i)]);
      pick.put(all[i]);
    }
    return;
  }
  absl::flat_hash_set<std::string_view> seen;
  while (seen.size() < count) {
    const Record r = h.random(pick.bits());
    if (seen.insert(r.key).second) pick.put(r);
  }
}

void hrandfield_count(CommandContext& ctx, std::int64_t n, bool withvalues) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (!ok) return;
  if (h == nullptr || n == 0) return ctx.reply.array(0);
  Picker pick{ctx, withvalues, speaks_resp3(ctx.reply)};
  if (n < 0 || n == 1) {  // repeats allowed (or one pick): each one independent
    const std::int64_t count = n < 0 ? -n : n;
    if (count > max_repeated_picks) return ctx.reply.error("ERR value is out of range");
    pick.header(count);
    for (std::int64_t i = 0; i < count; ++i) pick.put(h->random(pick.bits()));
    return;
  }
  const std::size_t size = h->size();
  const auto count = static_cast<std::size_t>(n);
  pick.header(static_cast<std::int64_t>(count < size ? count : size));
  if (count >= size) return h->for_each([&](Record r) { pick.put(r); });  // the whole hash, in its order
  pick_distinct(pick, *h, count);
}

}  // namespace

void hrandfield(CommandContext& ctx) {
  if (ctx.argv.size() == 2) {
    bool ok = true;
    const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
    if (!ok) return;
    if (h == nullptr) return ctx.reply.null();
    return ctx.reply.bulk(h->random(ctx.server.store().next_random()).key);
  }
  std::int64_t n = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], n)) return;
  if (n < -long_max) {
    return ctx.reply.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  }
  const bool withvalues = ctx.argv.size() == 4 && equals_ci(ctx.argv[3], "withvalues");
  if (ctx.argv.size() > 4 || (ctx.argv.size() == 4 && !withvalues)) return ctx.reply.error(detail::err_syntax);
  if (withvalues && (n < -long_max / 2 || n > long_max / 2)) return ctx.reply.error("ERR value is out of range");
  hrandfield_count(ctx, n, withvalues);
}

// Redis reads the cursor first, then the key, then the options: a missing
// key answers an empty scan whatever the options say.
void hscan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!detail::parse_scan_cursor(ctx.argv[2], cursor)) return ctx.reply.error("ERR invalid cursor");
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (!ok) return;
  detail::ScanArgs args;
  if (h != nullptr && !detail::parse_scan_args(ctx, args)) return;
  std::vector<Record> found;
  if (h != nullptr) {
    cursor = h->scan(cursor, static_cast<std::size_t>(args.count), [&](Record r) {
      if (!args.has_pattern || glob_match(args.pattern, r.key)) found.push_back(r);
    });
  }
  ctx.reply.array(2);
  ctx.reply.bulk(h != nullptr ? std::to_string(cursor) : "0");
  ctx.reply.array(found.size() * 2);
  for (const Record& r : found) {
    ctx.reply.bulk(r.key);
    ctx.reply.bulk(r.value);
  }
}

}  // namespace duet::kv::hash_cmd
