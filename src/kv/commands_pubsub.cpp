// Pub/sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH
// SSUBSCRIBE SUNSUBSCRIBE SPUBLISH PUBSUB, with Redis 7.0's RESP2 replies
// (pubsub.c). Every (un)subscription answers with one [kind, name, count]
// array, count being the client's channels plus patterns (its shard channels
// for the S commands); UNSUBSCRIBE / PUNSUBSCRIBE without arguments drop
// every subscription of that kind, and when there is none they still answer
// once, with a null name. The registry lives in kv/pubsub.hpp.
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/pubsub.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

void confirm(CommandContext& ctx, std::string_view kind, const std::string_view* name, const Subscriber* s) {
  const bool shard = kind == "ssubscribe" || kind == "sunsubscribe";
  ctx.reply.push(3);  // RESP3: a push frame, as the messages that follow
  ctx.reply.bulk(kind);
  if (name != nullptr) {
    ctx.reply.bulk(*name);
  } else {
    ctx.reply.null();
  }
  std::size_t count = s == nullptr ? 0 : shard ? s->shard_channel_count() : s->channel_count() + s->pattern_count();
  ctx.reply.integer(static_cast<std::int64_t>(count));
}

template <bool (Subscriber::*Add)(std::string_view)>
void subscribe_to(CommandContext& ctx, std::string_view kind) {
  Subscriber& s = ctx.server.pubsub().subscriber_of(ctx.client);
  for (std::size_t j = 1; j < ctx.argv.size(); ++j) {
    (s.*Add)(ctx.argv[j]);
    confirm(ctx, kind, &ctx.argv[j], &s);
  }
}

void subscribe(CommandContext& ctx) { subscribe_to<&Subscriber::subscribe>(ctx, "subscribe"); }
void psubscribe(CommandContext& ctx) { subscribe_to<&Subscriber::psubscribe>(ctx, "psubscribe"); }
void ssubscribe(CommandContext& ctx) { subscribe_to<&Subscriber::ssubscribe>(ctx, "ssubscribe"); }

// `names` are the client's channels or patterns; `drop` removes one of them.
template <typename Names, typename Drop>
void unsubscribe_from(CommandContext& ctx, std::string_view kind, Names&& names, Drop drop) {
  Subscriber* s = ctx.client.subscriber.get();
  if (ctx.argv.size() > 1) {
    for (std::size_t j = 1; j < ctx.argv.size(); ++j) {
      if (s != nullptr) drop(*s, ctx.argv[j]);
      confirm(ctx, kind, &ctx.argv[j], s);
    }
    return;
  }
  if (s == nullptr || names(*s).empty()) return confirm(ctx, kind, nullptr, s);
  for (const std::string& name : names(*s)) {
    std::string_view view = name;
    drop(*s, view);
    confirm(ctx, kind, &view, s);
  }
}

void unsubscribe(CommandContext& ctx) {
  unsubscribe_from(
      ctx, "unsubscribe", [](const Subscriber& s) { return s.channels(); },
      [](Subscriber& s, std::string_view c) { s.unsubscribe(c); });
}

void punsubscribe(CommandContext& ctx) {
  unsubscribe_from(
      ctx, "punsubscribe", [](const Subscriber& s) { return s.patterns(); },
      [](Subscriber& s, std::string_view p) { s.punsubscribe(p); });
}

void sunsubscribe(CommandContext& ctx) {
  unsubscribe_from(
      ctx, "sunsubscribe", [](const Subscriber& s) { return s.shard_channels(); },
      [](Subscriber& s, std::string_view c) { s.sunsubscribe(c); });
}

// A RESP3 client subscribed to what it publishes gets the message before the
// reply, as from Redis, whose push goes straight into the publisher's buffer:
// the message is moved from the client's push queue into the reply.
template <std::int64_t (PubSub::*Publish)(ServerState&, std::string_view, std::string_view)>
void publish_as(CommandContext& ctx) {
  Subscriber* self = ctx.client.resp == 3 ? ctx.client.subscriber.get() : nullptr;
  const std::size_t queued = self != nullptr ? self->queue().size() : 0;
  const std::int64_t receivers = (ctx.server.pubsub().*Publish)(ctx.server, ctx.argv[1], ctx.argv[2]);
  if (self != nullptr && self->queue().size() > queued) {
    ctx.reply.buffer().append(self->queue(), queued);
    self->queue().resize(queued);
  }
  ctx.reply.integer(receivers);
}

void publish(CommandContext& ctx) { publish_as<&PubSub::publish>(ctx); }
void spublish(CommandContext& ctx) { publish_as<&PubSub::spublish>(ctx); }

constexpr std::string_view pubsub_help[] = {
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "SHARDCHANNELS [<pattern>]",
    "    Return the currently active shard level channels matching a <pattern> (default: '*').",
    "SHARDNUMSUB [<shardchannel> ...]",
    "    Return the number of subscribers for the specified shard level channel(s)",
    "HELP",
    "    Prints this help.",
};

void syntax_error(CommandContext& ctx) {
  ctx.reply.error("ERR unknown subcommand or wrong number of arguments for '" + std::string(ctx.argv[1]) +
                  "'. Try PUBSUB HELP.");
}

// CHANNELS / SHARDCHANNELS [pattern].
void pubsub_channels(CommandContext& ctx, bool shard) {
  if (ctx.argv.size() > 3) return syntax_error(ctx);
  const bool all = ctx.argv.size() == 2;
  const auto found = ctx.server.pubsub().active_channels(all ? "" : ctx.argv[2], all, shard);
  ctx.reply.array(found.size());
  for (std::string_view c : found) ctx.reply.bulk(c);
}

void pubsub_numsub(CommandContext& ctx, bool shard) {
  ctx.reply.array((ctx.argv.size() - 2) * 2);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    ctx.reply.bulk(ctx.argv[j]);
    ctx.reply.integer(static_cast<std::int64_t>(ctx.server.pubsub().subscribers_of(ctx.argv[j], shard)));
  }
}

void pubsub(CommandContext& ctx) {
  std::string_view sub = ctx.argv[1];
  const std::size_t argc = ctx.argv.size();
  if (equals_ci(sub, "channels") || equals_ci(sub, "shardchannels")) {
    pubsub_channels(ctx, equals_ci(sub, "shardchannels"));
  } else if (equals_ci(sub, "numsub") || equals_ci(sub, "shardnumsub")) {
    pubsub_numsub(ctx, equals_ci(sub, "shardnumsub"));
  } else if (equals_ci(sub, "numpat")) {
    if (argc != 2) return detail::wrong_arity(ctx, "pubsub|numpat");
    ctx.reply.integer(static_cast<std::int64_t>(ctx.server.pubsub().pattern_count()));
  } else if (equals_ci(sub, "help")) {
    if (argc != 2) return detail::wrong_arity(ctx, "pubsub|help");
    ctx.reply.array(std::size(pubsub_help));
    for (std::string_view line : pubsub_help) ctx.reply.simple(line);
  } else {
    detail::unknown_subcommand(ctx, "PUBSUB");
  }
}

constexpr std::uint32_t sub_flags = cmd_pubsub | cmd_noscript | cmd_loading | cmd_stale | cmd_subscribed_ok;

constexpr Command commands[] = {
    {"subscribe", -2, sub_flags, subscribe, 0, 0, 0, "pubsub", "Listen for messages published to the given channels"},
    {"unsubscribe", -1, sub_flags, unsubscribe, 0, 0, 0, "pubsub", "Stop listening for messages posted to the given channels"},
    {"psubscribe", -2, sub_flags, psubscribe, 0, 0, 0, "pubsub", "Listen for messages published to channels matching the given patterns"},
    {"punsubscribe", -1, sub_flags, punsubscribe, 0, 0, 0, "pubsub", "Stop listening for messages posted to channels matching the given patterns"},
    {"publish", 3, cmd_pubsub | cmd_loading | cmd_stale | cmd_fast, publish, 0, 0, 0, "pubsub", "Post a message to a channel", ShardRoute::every},
    {"ssubscribe", -2, sub_flags, ssubscribe, 1, -1, 1, "pubsub", "Listen for messages published to the given shard channels", ShardRoute::here},
    {"sunsubscribe", -1, sub_flags, sunsubscribe, 1, -1, 1, "pubsub", "Stop listening for messages posted to the given shard channels", ShardRoute::here},
    {"spublish", 3, cmd_pubsub | cmd_loading | cmd_stale | cmd_fast, spublish, 1, 1, 1, "pubsub", "Post a message to a shard channel", ShardRoute::every},
    {"pubsub", -2, cmd_container, pubsub, 0, 0, 0, "pubsub", "A container for Pub/Sub commands", ShardRoute::subcommand},
};

}  // namespace

std::span<const Command> pubsub_commands() noexcept { return commands; }

}  // namespace duet::kv
