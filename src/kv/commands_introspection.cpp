// COMMAND, COMMAND COUNT | DOCS | INFO | LIST: the command table described to
// clients in Redis 7's reply shapes (RESP2 maps are flat arrays).
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

void reply_flags(CommandContext& ctx, const Command& cmd) {
  struct Name {
    std::uint32_t bit;
    std::string_view name;
  };
  // In Redis's order (commandFlagsToString / COMMAND_FLAG_*).
  constexpr Name names[] = {{cmd_write, "write"},       {cmd_readonly, "readonly"}, {cmd_denyoom, "denyoom"},
                            {cmd_admin, "admin"},       {cmd_pubsub, "pubsub"},     {cmd_noscript, "noscript"},
                            {cmd_blocking, "blocking"},
                            {cmd_loading, "loading"},   {cmd_stale, "stale"},       {cmd_skip_slowlog, "skip_slowlog"},
                            {cmd_fast, "fast"},
                            {cmd_no_auth, "no_auth"},   {cmd_no_multi, "no_multi"}, {cmd_allow_busy, "allow_busy"}};
  // A key count in the arguments (LMPOP, BLMPOP, SINTERCARD) or a key found
  // by parsing them (SORT's STORE) makes the keys "movable": Redis names it last.
  const bool movable = cmd.numkeys_at > 0 || cmd.written_key != nullptr;
  std::size_t n = movable ? 1 : 0;
  for (const Name& f : names) n += (cmd.flags & f.bit) != 0 ? 1 : 0;
  ctx.reply.set(n);  // flags, categories, tips and key specs are sets in RESP3
  for (const Name& f : names) {
    if ((cmd.flags & f.bit) != 0) ctx.reply.simple(f.name);
  }
  if (movable) ctx.reply.simple("movablekeys");
}

// ACL categories as Redis lists them: access kind, data group, speed.
void reply_categories(CommandContext& ctx, const Command& cmd) {
  std::string_view access = (cmd.flags & cmd_write) != 0 ? "@write" : (cmd.flags & cmd_readonly) != 0 ? "@read" : "";
  std::string_view group = cmd.group == "string"       ? "@string"
                           : cmd.group == "list"       ? "@list"
                           : cmd.group == "hash"       ? "@hash"
                           : cmd.group == "set"        ? "@set"
                           : cmd.group == "hyperloglog" ? "@hyperloglog"
                           : cmd.group == "geo"        ? "@geo"
                           : cmd.group == "sorted-set" ? "@sortedset"
                           : cmd.group == "bitmap"     ? "@bitmap"
                           : cmd.group == "hyperloglog" ? "@hyperloglog"
                           : cmd.group == "generic"    ? "@keyspace"
                           : cmd.group == "connection" ? "@connection"
                           : cmd.group == "transactions" ? "@transaction"
                           : (cmd.flags & cmd_pubsub) != 0 ? "@pubsub"
                           : (cmd.flags & cmd_admin) != 0  ? "@admin"
                                                           : "";
  std::string_view speed = (cmd.flags & cmd_fast) != 0 ? "@fast" : "@slow";
  // Redis lists @pubsub before the speed and @connection after it.
  const bool group_last = cmd.group == "connection" || cmd.group == "transactions";
  const bool blocking = (cmd.flags & cmd_blocking) != 0;  // @blocking comes last
  ctx.reply.set((access.empty() ? 0 : 1) + (group.empty() ? 0 : 1) + 1 + (blocking ? 1 : 0));
  if (!access.empty()) ctx.reply.simple(access);
  if (!group.empty() && !group_last) ctx.reply.simple(group);
  ctx.reply.simple(speed);
  if (!group.empty() && group_last) ctx.reply.simple(group);
  if (blocking) ctx.reply.simple("@blocking");
}

void reply_info(CommandContext& ctx, const Command* cmd) {
  if (cmd == nullptr) return ctx.reply.null();
  ctx.reply.array(10);
  ctx.reply.bulk(cmd->name);
  ctx.reply.integer(cmd->arity);
  reply_flags(ctx, *cmd);
  ctx.reply.integer(cmd->first_key);
  ctx.reply.integer(cmd->last_key);
  ctx.reply.integer(cmd->key_step);
  reply_categories(ctx, *cmd);
  for (int i = 0; i < 3; ++i) ctx.reply.set(0);  // tips, key specs, subcommands
}

void reply_docs(CommandContext& ctx, const Command& cmd) {
  ctx.reply.bulk(cmd.name);
  ctx.reply.map(4);
  ctx.reply.bulk("summary");
  ctx.reply.bulk(cmd.summary);
  ctx.reply.bulk("since");
  ctx.reply.bulk("1.0.0");
  ctx.reply.bulk("group");
  ctx.reply.bulk(cmd.group);
  ctx.reply.bulk("complexity");
  ctx.reply.bulk("O(1)");
}

void command_docs(CommandContext& ctx) {
  auto all = all_commands();
  if (ctx.argv.size() == 2) {
    ctx.reply.map(all.size());
    for (const Command* cmd : all) reply_docs(ctx, *cmd);
    return;
  }
  std::vector<const Command*> found;
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    if (const Command* cmd = find_command(ctx.argv[j])) found.push_back(cmd);
  }
  ctx.reply.map(found.size());
  for (const Command* cmd : found) reply_docs(ctx, *cmd);
}

void command(CommandContext& ctx) {
  auto all = all_commands();
  std::size_t argc = ctx.argv.size();
  if (argc == 1) {
    ctx.reply.array(all.size());
    for (const Command* cmd : all) reply_info(ctx, cmd);
    return;
  }
  std::string_view sub = ctx.argv[1];
  if (equals_ci(sub, "count")) {
    if (argc != 2) return detail::wrong_arity(ctx, "command|count");
    ctx.reply.integer(static_cast<std::int64_t>(all.size()));
  } else if (equals_ci(sub, "docs")) {
    command_docs(ctx);
  } else if (equals_ci(sub, "info")) {
    ctx.reply.array(argc - 2);
    for (std::size_t j = 2; j < argc; ++j) reply_info(ctx, find_command(ctx.argv[j]));
  } else if (equals_ci(sub, "list")) {
    ctx.reply.array(all.size());
    for (const Command* cmd : all) ctx.reply.bulk(cmd->name);
  } else {
    detail::unknown_subcommand(ctx, "COMMAND");
  }
}

constexpr Command commands[] = {
    {"command", -1, cmd_loading | cmd_stale | cmd_container, command, 0, 0, 0, "server", "Get array of Redis command details"},
};

}  // namespace

std::span<const Command> introspection_commands() noexcept { return commands; }

}  // namespace duet::kv
