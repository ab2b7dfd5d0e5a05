// PubSub: the registry and the push path. A PUBLISH formats the message once
// into message_ and appends those bytes to each receiver's queue; patterns are
// matched one by one (Redis 7.0 walks its pattern dict the same way), and each
// matching pattern's "pmessage" is formatted once for all its subscribers.
#include "kv/pubsub.hpp"

#include <algorithm>

#include "kv/glob.hpp"
#include "kv/reply.hpp"
#include "kv/server_state.hpp"

namespace duet::kv {

void SubscriberDeleter::operator()(Subscriber* s) const noexcept { delete s; }

Subscriber::~Subscriber() { unsubscribe_all(); }

void Subscriber::unsubscribe_all() {
  for (const std::string& c : channels_) PubSub::unlink(registry_.channels_, c, this);
  for (const std::string& c : shard_channels_) PubSub::unlink(registry_.shard_channels_, c, this);
  for (const std::string& p : patterns_) PubSub::unlink(registry_.patterns_, p, this);
  channels_.clear();
  shard_channels_.clear();
  patterns_.clear();
  registry_.note_listening();
}

bool Subscriber::subscribe(std::string_view channel) {
  const bool changed = PubSub::add(channels_, registry_.channels_, channel, this);
  registry_.note_listening();
  return changed;
}

bool Subscriber::unsubscribe(std::string_view channel) {
  const bool changed = PubSub::remove(channels_, registry_.channels_, channel, this);
  registry_.note_listening();
  return changed;
}

bool Subscriber::ssubscribe(std::string_view channel) {
  return PubSub::add(shard_channels_, registry_.shard_channels_, channel, this);
}

bool Subscriber::sunsubscribe(std::string_view channel) {
  return PubSub::remove(shard_channels_, registry_.shard_channels_, channel, this);
}

bool Subscriber::psubscribe(std::string_view pattern) {
  if (std::find(patterns_.begin(), patterns_.end(), pattern) != patterns_.end()) return false;
  patterns_.emplace_back(pattern);
  registry_.patterns_[pattern].push_back(this);
  registry_.note_listening();
  return true;
}

bool Subscriber::punsubscribe(std::string_view pattern) {
  auto it = std::find(patterns_.begin(), patterns_.end(), pattern);
  if (it == patterns_.end()) return false;
  PubSub::unlink(registry_.patterns_, pattern, this);
  patterns_.erase(it);
  registry_.note_listening();
  return true;
}

// Redis's checkClientOutputBufferLimits for the pubsub class, over the bytes
// not yet handed to the kernel: the reply buffer (which may be in flight) and
// the queue.
void Subscriber::push(std::string_view bytes, ServerState& server, std::int64_t now_ms) {
  const bool was_empty = queue_.empty();
  if (client_.resp == 3 && !bytes.empty()) {
    // A message is formatted once, as a RESP2 array, for every receiver; in
    // RESP3 it is a push frame, whose header differs only in its type byte.
    queue_.push_back('>');
    bytes.remove_prefix(1);
  }
  queue_.append(bytes);
  const OutputLimit& limit = server.config().pubsub_limit;
  const std::uint64_t unsent = client_.output_buffer + queue_.size();
  if (limit.hard != 0 && unsent > limit.hard) return drop(server);
  if (limit.soft != 0 && unsent > limit.soft) {
    if (soft_since_ms_ < 0) soft_since_ms_ = now_ms;
    if (now_ms - soft_since_ms_ >= limit.soft_seconds * 1000) return drop(server);
  } else {
    soft_since_ms_ = -1;
  }
  if (was_empty) wake();
}

void Subscriber::drop(ServerState& server) {
  client_.close_after_reply = true;
  std::string().swap(queue_);  // give the memory back now, not when the driver notices
  server.close_client(client_.fd);
  wake();
}

Subscriber& PubSub::subscriber_of(ClientInfo& client) {
  if (!client.subscriber) client.subscriber.reset(new Subscriber(*this, client));
  return *client.subscriber;
}

bool PubSub::add(NameSet& mine, NameMap<Subscribers>& map, std::string_view name, Subscriber* s) {
  if (!mine.emplace(name).second) return false;
  map[name].push_back(s);
  return true;
}

bool PubSub::remove(NameSet& mine, NameMap<Subscribers>& map, std::string_view name, Subscriber* s) {
  auto it = mine.find(name);
  if (it == mine.end()) return false;
  unlink(map, name, s);
  mine.erase(it);
  return true;
}

void PubSub::unlink(NameMap<Subscribers>& map, std::string_view key, Subscriber* s) {
  auto it = map.find(key);
  if (it == map.end()) return;
  Subscribers& subs = it->second;
  auto at = std::find(subs.begin(), subs.end(), s);
  if (at != subs.end()) {
    *at = subs.back();  // order among subscribers is not observable
    subs.pop_back();
  }
  if (subs.empty()) map.erase(it);
}

// Shard channels are not counted: keyspace events go to ordinary channels.
// Release: a shard that reads the bit set also sees the subscription made.
void PubSub::note_listening() noexcept {
  const bool listening = !channels_.empty() || !patterns_.empty();
  if (listening == listening_ || listening_word_ == nullptr) return;
  listening_ = listening;
  if (listening) {
    listening_word_->fetch_or(listening_bit_, std::memory_order_release);
  } else {
    listening_word_->fetch_and(~listening_bit_, std::memory_order_release);
  }
}

void PubSub::deliver(ServerState& server, const Subscribers& to, std::int64_t now, std::int64_t& receivers) {
  for (Subscriber* s : to) {
    if (s->client_.close_after_reply) continue;  // dropped or quitting: gone for publishers
    s->push(message_, server, now);
    ++receivers;
  }
}

void PubSub::format(std::string_view kind, std::string_view channel, std::string_view message) {
  message_.clear();
  Reply out(message_);
  out.array(3);
  out.bulk(kind);
  out.bulk(channel);
  out.bulk(message);
}

std::int64_t PubSub::spublish(ServerState& server, std::string_view channel, std::string_view message) {
  std::int64_t receivers = 0;
  if (auto it = shard_channels_.find(channel); it != shard_channels_.end()) {
    format("smessage", channel, message);
    deliver(server, it->second, server.now_ms(), receivers);
  }
  if (message_.capacity() > 64 * 1024) std::string().swap(message_);
  return receivers;
}

std::int64_t PubSub::publish(ServerState& server, std::string_view channel, std::string_view message) {
  std::int64_t receivers = 0;
  const std::int64_t now = server.now_ms();
  if (auto it = channels_.find(channel); it != channels_.end()) {
    format("message", channel, message);
    deliver(server, it->second, now, receivers);
  }
  for (const auto& [pattern, subs] : patterns_) {
    if (!glob_match(pattern, channel, false)) continue;
    message_.clear();
    Reply out(message_);
    out.array(4);
    out.bulk("pmessage");
    out.bulk(pattern);
    out.bulk(channel);
    out.bulk(message);
    deliver(server, subs, now, receivers);
  }
  if (message_.capacity() > 64 * 1024) std::string().swap(message_);  // a huge message leaves no huge buffer behind
  return receivers;
}

std::size_t PubSub::subscribers_of(std::string_view channel, bool shard) const noexcept {
  const auto& map = shard ? shard_channels_ : channels_;
  auto it = map.find(channel);
  return it == map.end() ? 0 : it->second.size();
}

std::vector<std::string_view> PubSub::active_channels(std::string_view pattern, bool all, bool shard) const {
  std::vector<std::string_view> out;
  for (const auto& entry : shard ? shard_channels_ : channels_) {
    if (all || glob_match(pattern, entry.first, false)) out.push_back(entry.first);
  }
  return out;
}

std::vector<std::string_view> PubSub::active_patterns() const {
  std::vector<std::string_view> out;
  out.reserve(patterns_.size());
  for (const auto& entry : patterns_) out.push_back(entry.first);
  return out;
}

}  // namespace duet::kv
