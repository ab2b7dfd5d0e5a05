// Keyspace notifications: the flag string (config.c / notify.c) and the
// publish path. Only an enabled class gets here; the channel is built once
// per event in a per-thread buffer, published to this state's subscribers,
// and staged for other shards only when one of them has a subscriber.
#include "kv/notify.hpp"

#include <charconv>
#include <cstring>

#include "kv/pubsub.hpp"

namespace duet::kv {

std::optional<std::uint32_t> parse_notify_flags(std::string_view classes) noexcept {
  std::uint32_t flags = 0;
  for (char c : classes) {
    switch (c) {
      case 'A': flags |= notify_all; break;
      case 'g': flags |= notify_generic; break;
      case '$': flags |= notify_string; break;
      case 'l': flags |= notify_list; break;
      case 's': flags |= notify_set; break;
      case 'h': flags |= notify_hash; break;
      case 'z': flags |= notify_zset; break;
      case 'x': flags |= notify_expired; break;
      case 'e': flags |= notify_evicted; break;
      case 'K': flags |= notify_keyspace; break;
      case 'E': flags |= notify_keyevent; break;
      case 't': flags |= notify_stream; break;
      case 'm': flags |= notify_key_miss; break;
      case 'd': flags |= notify_module; break;
      case 'n': flags |= notify_new; break;
      default: return std::nullopt;  // Redis reads a C string: a NUL byte is refused here too
    }
  }
  return flags;
}

std::string format_notify_flags(std::uint32_t flags) {
  std::string out;
  if ((flags & notify_all) == notify_all) {
    out += 'A';
  } else {
    constexpr std::pair<NotifyClass, char> order[] = {
        {notify_generic, 'g'}, {notify_string, '$'}, {notify_list, 'l'},    {notify_set, 's'},
        {notify_hash, 'h'},    {notify_zset, 'z'},   {notify_expired, 'x'}, {notify_evicted, 'e'},
        {notify_stream, 't'},  {notify_module, 'd'}, {notify_new, 'n'}};
    for (const auto& [bit, c] : order) {
      if ((flags & bit) != 0) out += c;
    }
  }
  if ((flags & notify_keyspace) != 0) out += 'K';
  if ((flags & notify_keyevent) != 0) out += 'E';
  if ((flags & notify_key_miss) != 0) out += 'm';
  return out;
}

void stage_event(std::string& staged, std::string_view channel, std::string_view message) {
  for (std::string_view part : {channel, message}) {
    const auto n = static_cast<std::uint32_t>(part.size());
    staged.append(reinterpret_cast<const char*>(&n), sizeof n);
    staged.append(part);
  }
}

namespace detail {

std::string_view take_staged(std::string_view& staged) noexcept {
  std::uint32_t n = 0;
  std::memcpy(&n, staged.data(), sizeof n);
  const std::string_view part = staged.substr(sizeof n, n);
  staged.remove_prefix(sizeof n + n);
  return part;
}

namespace {

// "__keyspace@<db>__:" + tail, into a buffer kept for its capacity.
std::string_view channel_of(std::string& buf, std::string_view prefix, int db, std::string_view tail) {
  char digits[12];
  char* end = std::to_chars(digits, digits + sizeof digits, db).ptr;
  buf.assign(prefix);
  buf.append(digits, static_cast<std::size_t>(end - digits));
  buf.append("__:");
  buf.append(tail);
  return buf;
}

}  // namespace

// notifyKeyspaceEvent: the keyspace channel first, then the keyevent one.
void publish_event(ServerState& state, std::uint32_t flags, int db, std::string_view event, std::string_view key) {
  if ((flags & (notify_keyspace | notify_keyevent)) == 0) return;
  EventRelay* relay = state.event_relay();
  const bool others = relay != nullptr && relay->others_listen();
  PubSub& pubsub = state.pubsub();
  if (!others && pubsub.channel_count() == 0 && pubsub.pattern_count() == 0) return;  // nobody to tell
  thread_local std::string channel;
  auto publish = [&](std::string_view prefix, std::string_view tail, std::string_view message) {
    const std::string_view name = channel_of(channel, prefix, db, tail);
    pubsub.publish(state, name, message);
    if (others) stage_event(state.staged_events(), name, message);
  };
  if ((flags & notify_keyspace) != 0) publish("__keyspace@", key, event);
  if ((flags & notify_keyevent) != 0) publish("__keyevent@", event, key);
}

}  // namespace detail
}  // namespace duet::kv
