// CONFIG GET / CONFIG SET over the server's real parameters, with Redis 7.0's
// rules and error strings (config.c): numbers are integers (string2ll) or
// memory values (memtoull) within bounds, enums list their choices, and
// parameters the server cannot change at run time answer like Redis's
// immutable ones. `save` and `appendonly` exist because redis-benchmark asks
// for them (`save` is "" as duet has no RDB; `appendonly` is --appendonly,
// fixed at start). hz, timeout and maxmemory (policy noeviction) take effect
// at once: the drivers read hz for every cron sleep, the cron closes idle
// clients, and the Session checks maxmemory before each command that may grow
// memory.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/glob.hpp"
#include "kv/notify.hpp"

namespace duet::kv::detail {
namespace {

// A setter stores `value` into the config, or returns why not (Redis's words);
// nullptr marks an immutable parameter.
using Getter = std::string (*)(const ServerConfig&);
using Setter = std::string (*)(ServerConfig&, std::string_view value);

struct Param {
  std::string_view name;
  Getter get;
  Setter set;
};

enum class Unit { integer, memory };

// numericParseString + numericBoundaryCheck. A negative integer wraps above
// every upper bound, as it does in Redis's unsigned check, and gets the same
// "between" message a signed check gives for our non-negative lower bounds.
std::string parse_number(std::string_view v, Unit unit, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out) {
  if (unit == Unit::memory) {
    if (!parse_memory(v, out)) return "argument must be a memory value";
  } else {
    std::int64_t n = 0;
    if (!parse_i64(v, n)) return "argument couldn't be parsed into an integer";
    out = static_cast<std::uint64_t>(n);
  }
  if (out >= lo && out <= hi) return {};
  return "argument must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " inclusive";
}

template <auto Field>
std::string get_number(const ServerConfig& c) {
  return std::to_string(c.*Field);
}

template <auto Field, Unit U, std::uint64_t Lo, std::uint64_t Hi>
std::string set_number(ServerConfig& c, std::string_view v) {
  std::uint64_t n = 0;
  std::string why = parse_number(v, U, Lo, Hi, n);
  if (why.empty()) c.*Field = static_cast<std::remove_reference_t<decltype(c.*Field)>>(n);
  return why;
}

// A signed integer parameter (list-max-listpack-size takes negative sizes).
template <auto Field, std::int64_t Lo, std::int64_t Hi>
std::string set_signed(ServerConfig& c, std::string_view v) {
  std::int64_t n = 0;
  if (!parse_i64(v, n)) return "argument couldn't be parsed into an integer";
  if (n < Lo || n > Hi) {
    return "argument must be between " + std::to_string(Lo) + " and " + std::to_string(Hi) + " inclusive";
  }
  c.*Field = static_cast<std::remove_reference_t<decltype(c.*Field)>>(n);
  return {};
}

// updateHZ: hz is a hint; out-of-range values are accepted and capped.
std::string set_hz(ServerConfig& c, std::string_view v) {
  std::string why = set_number<&ServerConfig::hz, Unit::integer, 0, INT32_MAX>(c, v);
  c.hz = c.hz < 1 ? 1 : c.hz > 500 ? 500 : c.hz;
  return why;
}

// An enum: one of `choices`, in any case; stored in its canonical spelling.
std::string set_enum(std::string& field, std::string_view v, std::initializer_list<std::string_view> choices) {
  std::string why = "argument(s) must be one of the following: ";
  for (std::string_view choice : choices) {
    if (equals_ci(v, choice)) return field.assign(choice), std::string();
    why.append(choice).append(choice == *(choices.end() - 1) ? "" : ", ");
  }
  return why;
}

std::string set_eviction_policy(ServerConfig&, std::string_view v) {
  std::string policy;
  std::string why = set_enum(policy, v, {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
                                         "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"});
  if (!why.empty() || policy == "noeviction") return why;
  return "duet evicts nothing: only noeviction is supported";
}

std::string set_appendonly(ServerConfig& c, std::string_view v) {
  if (!equals_ci(v, "yes") && !equals_ci(v, "no")) return "argument must be 'yes' or 'no'";
  if (equals_ci(v, "yes") == c.appendonly) return {};
  return "duet turns the AOF on or off only at start-up (--appendonly)";
}

// Redis shows unixsocketperm in octal ("700"), as it is given.
std::string octal(unsigned mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%o", mode & 0777u);
  return text;
}

// client-output-buffer-limit: "<class> <hard> <soft> <soft seconds>" groups
// (Redis's config.c, messages included); classes normal, slave/replica, pubsub.
struct LimitClass {
  std::string_view name;
  OutputLimit ServerConfig::*field;
};
constexpr LimitClass limit_classes[] = {{"normal", &ServerConfig::normal_limit},
                                        {"slave", &ServerConfig::replica_limit},
                                        {"replica", &ServerConfig::replica_limit},
                                        {"pubsub", &ServerConfig::pubsub_limit}};

std::string get_output_limits(const ServerConfig& c) {
  std::string out;
  for (const LimitClass& k : limit_classes) {
    if (k.name == "replica") continue;  // Redis prints the class once, as "slave"
    const OutputLimit& l = c.*k.field;
    out.append(out.empty() ? "" : " ").append(k.name);
    out.append(" " + std::to_string(l.hard) + " " + std::to_string(l.soft) + " " + std::to_string(l.soft_seconds));
  }
  return out;
}

std::string set_output_limits(ServerConfig& c, std::string_view v) {
  std::vector<std::string_view> words;
  for (std::size_t at = 0; !v.empty() && at <= v.size();) {  // split on single spaces, as sdssplitlen does
    std::size_t end = std::min(v.find(' ', at), v.size());
    words.push_back(v.substr(at, end - at));
    at = end + 1;
  }
  if (words.size() % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
  ServerConfig changed = c;
  for (std::size_t j = 0; j < words.size(); j += 4) {
    const LimitClass* k = nullptr;
    for (const LimitClass& candidate : limit_classes) {
      if (equals_ci(words[j], candidate.name)) k = &candidate;
    }
    if (k == nullptr) return "Invalid client class specified in buffer limit configuration.";
    OutputLimit limit;
    if (!parse_memory(words[j + 1], limit.hard) || !parse_memory(words[j + 2], limit.soft) ||
        !parse_i64(words[j + 3], limit.soft_seconds) || limit.soft_seconds < 0) {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    changed.*k->field = limit;
  }
  c = std::move(changed);
  return {};
}

// notify-keyspace-events: Redis's class letters (kv/notify.hpp).
std::string set_notify_flags(ServerConfig& c, std::string_view v) {
  const auto flags = parse_notify_flags(v);
  if (!flags) return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
  c.notify_keyspace_events = *flags;
  return {};
}

constexpr std::uint64_t int_max = INT32_MAX;
constexpr std::uint64_t long_max = INT64_MAX;
using C = ServerConfig;

constexpr Param params[] = {
    {"bind", [](const C& c) { return c.bind; }, nullptr},
    {"port", get_number<&C::port>, nullptr},
    {"unixsocket", [](const C& c) { return c.unixsocket; }, nullptr},
    {"unixsocketperm", [](const C& c) { return octal(c.unixsocketperm); }, nullptr},
    {"databases", [](const C&) { return std::string("16"); }, nullptr},
    {"maxclients", get_number<&C::maxclients>, set_number<&C::maxclients, Unit::integer, 1, UINT32_MAX>},
    {"requirepass", [](const C& c) { return c.requirepass; },
     [](C& c, std::string_view v) { return c.requirepass.assign(v), std::string(); }},
    {"proto-max-bulk-len", get_number<&C::proto_max_bulk_len>,
     set_number<&C::proto_max_bulk_len, Unit::memory, 1024 * 1024, long_max>},
    {"client-query-buffer-limit", get_number<&C::client_query_limit>,
     set_number<&C::client_query_limit, Unit::memory, 1024 * 1024, long_max>},
    {"loglevel", [](const C& c) { return c.loglevel; },
     [](C& c, std::string_view v) { return set_enum(c.loglevel, v, {"debug", "verbose", "notice", "warning"}); }},
    {"hz", get_number<&C::hz>, set_hz},
    {"timeout", get_number<&C::timeout>, set_number<&C::timeout, Unit::integer, 0, int_max>},
    {"maxmemory", get_number<&C::maxmemory>, set_number<&C::maxmemory, Unit::memory, 0, UINT64_MAX>},
    {"maxmemory-policy", [](const C&) { return std::string("noeviction"); }, set_eviction_policy},
    {"save", [](const C&) { return std::string(); },
     [](C&, std::string_view v) { return v.empty() ? std::string() : "duet has no RDB snapshots: only \"\" is accepted"; }},
    {"appendonly", [](const C& c) { return std::string(c.appendonly ? "yes" : "no"); }, set_appendonly},
    {"appendfsync", [](const C& c) { return c.appendfsync; },
     [](C& c, std::string_view v) { return set_enum(c.appendfsync, v, {"everysec", "always", "no"}); }},
    {"appendfilename", [](const C& c) { return c.appendfilename; }, nullptr},
    {"dir", [](const C& c) { return c.dir; }, nullptr},
    {"auto-aof-rewrite-percentage", get_number<&C::auto_aof_rewrite_percentage>,
     set_number<&C::auto_aof_rewrite_percentage, Unit::integer, 0, int_max>},
    {"auto-aof-rewrite-min-size", get_number<&C::auto_aof_rewrite_min_size>,
     set_number<&C::auto_aof_rewrite_min_size, Unit::memory, 0, long_max>},
    {"client-output-buffer-limit", get_output_limits, set_output_limits},
    {"notify-keyspace-events", [](const C& c) { return format_notify_flags(c.notify_keyspace_events); },
     set_notify_flags},
    // The types' encoding thresholds; the *-ziplist-* names are Redis's aliases.
    {"list-max-listpack-size", get_number<&C::list_max_listpack_size>,
     set_signed<&C::list_max_listpack_size, INT32_MIN, INT32_MAX>},
    {"list-max-ziplist-size", get_number<&C::list_max_listpack_size>,
     set_signed<&C::list_max_listpack_size, INT32_MIN, INT32_MAX>},
    {"hash-max-listpack-entries", get_number<&C::hash_max_listpack_entries>,
     set_number<&C::hash_max_listpack_entries, Unit::integer, 0, long_max>},
    {"hash-max-ziplist-entries", get_number<&C::hash_max_listpack_entries>,
     set_number<&C::hash_max_listpack_entries, Unit::integer, 0, long_max>},
    {"hash-max-listpack-value", get_number<&C::hash_max_listpack_value>,
     set_number<&C::hash_max_listpack_value, Unit::integer, 0, long_max>},
    {"hash-max-ziplist-value", get_number<&C::hash_max_listpack_value>,
     set_number<&C::hash_max_listpack_value, Unit::integer, 0, long_max>},
    {"set-max-intset-entries", get_number<&C::set_max_intset_entries>,
     set_number<&C::set_max_intset_entries, Unit::integer, 0, long_max>},
    {"zset-max-listpack-entries", get_number<&C::zset_max_listpack_entries>,
     set_number<&C::zset_max_listpack_entries, Unit::integer, 0, long_max>},
    {"zset-max-ziplist-entries", get_number<&C::zset_max_listpack_entries>,
     set_number<&C::zset_max_listpack_entries, Unit::integer, 0, long_max>},
    {"zset-max-listpack-value", get_number<&C::zset_max_listpack_value>,
     set_number<&C::zset_max_listpack_value, Unit::integer, 0, long_max>},
    {"zset-max-ziplist-value", get_number<&C::zset_max_listpack_value>,
     set_number<&C::zset_max_listpack_value, Unit::integer, 0, long_max>},
    {"hll-sparse-max-bytes", get_number<&C::hll_sparse_max_bytes>,
     set_number<&C::hll_sparse_max_bytes, Unit::memory, 0, long_max>},
};

const Param* find_param(std::string_view name) {
  for (const Param& p : params) {
    if (equals_ci(p.name, name)) return &p;
  }
  return nullptr;
}

// configGetCommand: an argument with no glob character ([*?) is a name,
// looked up in any case and answered in the spelling it was given; a pattern
// answers the names it matches as Redis spells them. A parameter asked for
// more than once (twice, in another case, by a pattern too) is listed once,
// under its first spelling. Redis lists its matches in a dict's order, which
// its random hash seed changes at every start; duet keeps the order asked.
void config_get(CommandContext& ctx) {
  std::vector<std::pair<std::string_view, const Param*>> found;
  auto add = [&found](std::string_view spelling, const Param* p) {
    auto same = [p](const auto& f) { return f.second == p; };
    if (std::find_if(found.begin(), found.end(), same) == found.end()) found.emplace_back(spelling, p);
  };
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    const std::string_view arg = ctx.argv[j];
    if (arg.find_first_of("[*?") == std::string_view::npos) {
      if (const Param* p = find_param(arg)) add(arg, p);
      continue;
    }
    for (const Param& p : params) {
      if (glob_match(arg, p.name, true)) add(p.name, &p);
    }
  }
  ctx.reply.map(found.size());
  for (const auto& [spelling, p] : found) {
    ctx.reply.bulk(spelling);
    ctx.reply.bulk(p->get(ctx.server.config()));
  }
}

void config_set_failed(CommandContext& ctx, std::string_view arg, std::string_view why) {
  std::string message = "ERR CONFIG SET failed (possibly related to argument '";
  ctx.reply.error(message.append(arg).append("') - ").append(why));
}

// configSetCommand: first every name (unknown, immutable, given twice: the
// first problem wins, named as typed), then every value on a copy (named as
// Redis spells the parameter); the copy replaces the config only if all
// parsed, so a failed CONFIG SET changes nothing.
void config_set(CommandContext& ctx) {
  auto argv = ctx.argv;
  std::vector<const Param*> chosen;
  for (std::size_t j = 2; j < argv.size(); j += 2) {
    const Param* p = find_param(argv[j]);
    if (p == nullptr) {
      return ctx.reply.error("ERR Unknown option or number of arguments for CONFIG SET - '" + std::string(argv[j]) + "'");
    }
    if (p->set == nullptr) return config_set_failed(ctx, argv[j], "can't set immutable config");
    if (std::find(chosen.begin(), chosen.end(), p) != chosen.end()) {
      return config_set_failed(ctx, argv[j], "duplicate parameter");
    }
    chosen.push_back(p);
  }
  ServerConfig changed = ctx.server.config();
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    std::string why = chosen[i]->set(changed, argv[2 + 2 * i + 1]);
    if (!why.empty()) return config_set_failed(ctx, chosen[i]->name, why);
  }
  ctx.server.config() = std::move(changed);
  ctx.reply.ok();
}

}  // namespace

void config_command(CommandContext& ctx) {
  std::string_view sub = ctx.argv[1];
  std::size_t argc = ctx.argv.size();
  if (equals_ci(sub, "get")) {
    if (argc < 3) return wrong_arity(ctx, "config|get");
    config_get(ctx);
  } else if (equals_ci(sub, "set")) {
    if (argc < 4 || argc % 2 != 0) return wrong_arity(ctx, "config|set");
    config_set(ctx);
  } else if (equals_ci(sub, "resetstat")) {
    if (argc != 2) return wrong_arity(ctx, "config|resetstat");
    ctx.server.stats() = ServerStats{};
    ctx.reply.ok();
  } else {
    unknown_subcommand(ctx, "CONFIG");
  }
}

}  // namespace duet::kv::detail
