// CONFIG GET / CONFIG SET over the server's real parameters. Parameters the
// server cannot change at run time answer like Redis's immutable ones; `save`
// and `appendonly` exist because redis-benchmark asks for them (`save` is ""
// as duet has no RDB; `appendonly` is --appendonly, fixed at start; the AOF's
// appendfsync and auto-aof-rewrite-* can be changed at run time).
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/glob.hpp"

namespace duet::kv::detail {
namespace {

// memtoull: a byte count with an optional k/kb/m/mb/g/gb suffix.
bool parse_memory(std::string_view text, std::size_t& out) {
  struct Unit {
    std::string_view suffix;
    std::size_t mul;
  };
  constexpr Unit units[] = {{"kb", 1024}, {"mb", 1024 * 1024}, {"gb", 1024ull * 1024 * 1024},
                            {"k", 1000},  {"m", 1000 * 1000},  {"g", 1000ull * 1000 * 1000}};
  std::size_t mul = 1;
  for (const Unit& u : units) {
    if (text.size() > u.suffix.size() && equals_ci(text.substr(text.size() - u.suffix.size()), u.suffix)) {
      mul = u.mul;
      text.remove_suffix(u.suffix.size());
      break;
    }
  }
  std::int64_t n = 0;
  if (!parse_i64(text, n) || n < 0) return false;
  out = static_cast<std::size_t>(n) * mul;
  return true;
}

struct Param {
  std::string_view name;
  std::string (*get)(const ServerConfig&);
  bool (*set)(ServerConfig&, std::string_view);  // nullptr: immutable
};

constexpr Param params[] = {
    {"bind", [](const ServerConfig& c) { return c.bind; }, nullptr},
    {"port", [](const ServerConfig& c) { return std::to_string(c.port); }, nullptr},
    {"databases", [](const ServerConfig&) { return std::string("16"); }, nullptr},
    {"maxclients", [](const ServerConfig& c) { return std::to_string(c.maxclients); },
     [](ServerConfig& c, std::string_view v) {
       std::int64_t n = 0;
       return parse_i64(v, n) && n >= 1 ? (c.maxclients = static_cast<std::size_t>(n), true) : false;
     }},
    {"requirepass", [](const ServerConfig& c) { return c.requirepass; },
     [](ServerConfig& c, std::string_view v) { return c.requirepass.assign(v), true; }},
    {"proto-max-bulk-len", [](const ServerConfig& c) { return std::to_string(c.proto_max_bulk_len); },
     [](ServerConfig& c, std::string_view v) { return parse_memory(v, c.proto_max_bulk_len) && c.proto_max_bulk_len >= 1024 * 1024; }},
    {"client-query-buffer-limit", [](const ServerConfig& c) { return std::to_string(c.client_query_limit); },
     [](ServerConfig& c, std::string_view v) { return parse_memory(v, c.client_query_limit) && c.client_query_limit >= 1024 * 1024; }},
    {"loglevel", [](const ServerConfig& c) { return c.loglevel; },
     [](ServerConfig& c, std::string_view v) {
       for (std::string_view level : {"debug", "verbose", "notice", "warning"}) {
         if (equals_ci(v, level)) return c.loglevel.assign(level), true;
       }
       return false;
     }},
    {"hz", [](const ServerConfig& c) { return std::to_string(c.hz); }, nullptr},
    {"save", [](const ServerConfig&) { return std::string(); },
     [](ServerConfig&, std::string_view v) { return v.empty(); }},
    {"appendonly", [](const ServerConfig& c) { return std::string(c.appendonly ? "yes" : "no"); },
     [](ServerConfig& c, std::string_view v) { return equals_ci(v, c.appendonly ? "yes" : "no"); }},  // start-up only
    {"appendfsync", [](const ServerConfig& c) { return c.appendfsync; },
     [](ServerConfig& c, std::string_view v) {
       for (std::string_view policy : {"always", "everysec", "no"}) {
         if (equals_ci(v, policy)) return c.appendfsync.assign(policy), true;
       }
       return false;
     }},
    {"appendfilename", [](const ServerConfig& c) { return c.appendfilename; }, nullptr},
    {"dir", [](const ServerConfig& c) { return c.dir; }, nullptr},
    {"auto-aof-rewrite-percentage", [](const ServerConfig& c) { return std::to_string(c.auto_aof_rewrite_percentage); },
     [](ServerConfig& c, std::string_view v) {
       std::int64_t n = 0;
       return parse_i64(v, n) && n >= 0 && n <= 1000000 ? (c.auto_aof_rewrite_percentage = static_cast<int>(n), true) : false;
     }},
    {"auto-aof-rewrite-min-size", [](const ServerConfig& c) { return std::to_string(c.auto_aof_rewrite_min_size); },
     [](ServerConfig& c, std::string_view v) { return parse_memory(v, c.auto_aof_rewrite_min_size); }},
    {"maxmemory", [](const ServerConfig&) { return std::string("0"); }, nullptr},
    {"timeout", [](const ServerConfig&) { return std::string("0"); }, nullptr},
};

const Param* find_param(std::string_view name) {
  for (const Param& p : params) {
    if (equals_ci(p.name, name)) return &p;
  }
  return nullptr;
}

void config_get(CommandContext& ctx) {
  std::vector<const Param*> found;
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    for (const Param& p : params) {
      if (glob_match(ctx.argv[j], p.name, true) && std::find(found.begin(), found.end(), &p) == found.end()) {
        found.push_back(&p);
      }
    }
  }
  ctx.reply.array(found.size() * 2);
  for (const Param* p : found) {
    ctx.reply.bulk(p->name);
    ctx.reply.bulk(p->get(ctx.server.config()));
  }
}

void config_set(CommandContext& ctx) {
  auto argv = ctx.argv;
  for (std::size_t j = 2; j < argv.size(); j += 2) {  // validate all first: all or nothing
    const Param* p = find_param(argv[j]);
    if (p == nullptr) {
      return ctx.reply.error("ERR Unknown option or number of arguments for CONFIG SET - '" + std::string(argv[j]) + "'");
    }
    ServerConfig probe = ctx.server.config();
    if (p->set == nullptr || !p->set(probe, argv[j + 1])) {
      std::string why = p->set == nullptr ? "can't set immutable config" : "argument couldn't be parsed or is out of range";
      return ctx.reply.error("ERR CONFIG SET failed (possibly related to argument '" + std::string(argv[j]) + "') - " + why);
    }
  }
  for (std::size_t j = 2; j < argv.size(); j += 2) find_param(argv[j])->set(ctx.server.config(), argv[j + 1]);
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
