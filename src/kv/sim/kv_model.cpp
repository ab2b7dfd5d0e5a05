// KvModel: command mix and reply rules. The mix leans to reads and plain
// writes, as a cache's traffic does, with enough PX, APPEND and DEL to cross
// expiry with every other command, and PUBLISH for the pub/sub path.
#include "kv/sim/kv_model.hpp"

#include "duet/io/sim_world.hpp"

namespace duet::kv::sim {

std::string resp_bulk(const std::optional<std::string>& v) {
  if (!v) return "$-1\r\n";
  return "$" + std::to_string(v->size()) + "\r\n" + *v + "\r\n";
}

std::string resp_int(std::int64_t n) { return ":" + std::to_string(n) + "\r\n"; }

std::string resp_command(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += resp_bulk(a);
  return out;
}

namespace {
constexpr int keys_per_client = 8;

// Up to `most` bytes of RESP for a one-line message: CR and LF escaped.
std::string shown(std::string_view bytes, std::size_t most) {
  std::string out;
  for (char c : bytes.substr(0, most)) {
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}
constexpr int counters_per_client = 2;
}  // namespace

// Values of 1 to ~300 bytes, some with bytes RESP must carry as they are.
std::string KvModel::value_for(std::size_t round) {
  std::string v = "v" + std::to_string(client_) + "." + std::to_string(round);
  const std::size_t pad = world_.below(8) == 0 ? world_.below(300) : world_.below(12);
  for (std::size_t i = 0; i < pad; ++i) v.push_back(static_cast<char>("ab\r\n\0 $*:"[world_.below(9)]));
  return v;
}

ModelCommand KvModel::next(const std::string& channel) {
  ModelCommand c;
  const std::uint64_t roll = world_.below(100);
  const std::string key = "c" + std::to_string(client_) + ":k" + std::to_string(world_.below(keys_per_client));
  ++rounds_;
  if (roll < 30) {
    c = {ModelCommand::Kind::get, key, {}, 0, resp_command({"GET", key})};
  } else if (roll < 50) {
    c.kind = ModelCommand::Kind::set;
    c.key = key;
    c.value = value_for(rounds_);
    c.bytes = resp_command({"SET", key, c.value});
  } else if (roll < 58) {
    c.kind = ModelCommand::Kind::set_px;
    c.key = key;
    c.value = value_for(rounds_);
    c.px = 1 + static_cast<std::int64_t>(world_.below(200));
    c.bytes = resp_command({"SET", key, c.value, "PX", std::to_string(c.px)});
  } else if (roll < 66) {
    c = {ModelCommand::Kind::del, key, {}, 0, resp_command({"DEL", key})};
  } else if (roll < 76) {
    const std::string counter = "c" + std::to_string(client_) + ":n" + std::to_string(world_.below(counters_per_client));
    c = {ModelCommand::Kind::incr, counter, {}, 0, resp_command({"INCR", counter})};
  } else if (roll < 86) {
    c.kind = ModelCommand::Kind::append;
    c.key = key;
    c.value = value_for(rounds_);
    c.bytes = resp_command({"APPEND", key, c.value});
  } else if (roll < 95) {
    c = {ModelCommand::Kind::exists, key, {}, 0, resp_command({"EXISTS", key})};
  } else if (roll == 95 && world_.below(2) == 0) {  // a rewrite now and then, amid the writes
    c = {ModelCommand::Kind::rewrite, {}, {}, 0, resp_command({"BGREWRITEAOF"})};
  } else {
    c.kind = ModelCommand::Kind::publish;
    c.key = channel;
    c.value = "m" + std::to_string(client_) + "." + std::to_string(rounds_);
    c.bytes = resp_command({"PUBLISH", channel, c.value});
  }
  return c;
}

// Redis: a key is expired once now > its expiry time (ms). One ms of slack
// on each side for the server's clock read against ours.
KvModel::Presence KvModel::presence(const Key& k, std::int64_t sent_ms, std::int64_t replied_ms) const noexcept {
  if (!k.value) return Presence::absent;
  if (k.expire_hi == INT64_MAX || replied_ms + 1 < k.expire_lo) return Presence::present;
  if (sent_ms > k.expire_hi + 1) return Presence::absent;
  return Presence::unknown;
}

std::string KvModel::settle(const ModelCommand& cmd, const std::string& reply, std::int64_t sent_ms,
                            std::int64_t replied_ms) {
  auto wrong = [&](const std::string& expected) {
    return "client " + std::to_string(client_) + ": " + shown(cmd.bytes, 60) + " replied " + shown(reply, 80) +
           " expected " + shown(expected, 80);
  };
  if (cmd.kind == ModelCommand::Kind::incr) {
    const std::string want = resp_int(++counters_[cmd.key]);
    return reply == want ? "" : wrong(want);
  }
  if (cmd.kind == ModelCommand::Kind::publish) {
    return reply == resp_int(1) ? "" : wrong(resp_int(1));  // one subscriber listens throughout
  }
  if (cmd.kind == ModelCommand::Kind::rewrite) {
    if (reply == "+Background append only file rewriting started\r\n") return "";
    if (reply == "-ERR Background append only file rewriting already in progress\r\n") return "";
    return wrong("+Background append only file rewriting started");
  }
  if (cmd.kind == ModelCommand::Kind::audit) return settle_audit(cmd, reply, sent_ms, replied_ms);
  Key& k = keys_[cmd.key];
  const Presence was = presence(k, sent_ms, replied_ms);
  const std::optional<std::string> old = k.value;
  auto gone = [&k] { k = Key{}; };
  switch (cmd.kind) {
    case ModelCommand::Kind::get:
    case ModelCommand::Kind::exists: {
      const bool get = cmd.kind == ModelCommand::Kind::get;
      const std::string if_present = get ? resp_bulk(old) : resp_int(1);
      const std::string if_absent = get ? resp_bulk(std::nullopt) : resp_int(0);
      if (was != Presence::absent && reply == if_present) return "";
      if (was != Presence::present && reply == if_absent) {
        gone();
        return "";
      }
      return wrong(was == Presence::absent ? if_absent : if_present);
    }
    case ModelCommand::Kind::set:
      k = Key{cmd.value};
      return reply == "+OK\r\n" ? "" : wrong("+OK");
    case ModelCommand::Kind::set_px:
      k = Key{cmd.value, sent_ms + cmd.px, replied_ms + cmd.px};
      return reply == "+OK\r\n" ? "" : wrong("+OK");
    case ModelCommand::Kind::del:
      gone();
      if (was != Presence::absent && reply == resp_int(1)) return "";
      if (was != Presence::present && reply == resp_int(0)) return "";
      return wrong(was == Presence::absent ? ":0" : ":1");
    case ModelCommand::Kind::append: {
      const std::string if_present = old ? resp_int(static_cast<std::int64_t>(old->size() + cmd.value.size())) : "";
      if (was != Presence::absent && reply == if_present) {
        k.value = *old + cmd.value;  // APPEND keeps the expiry
        return "";
      }
      if (was != Presence::present && reply == resp_int(static_cast<std::int64_t>(cmd.value.size()))) {
        k = Key{cmd.value};
        return "";
      }
      return wrong(was == Presence::absent ? resp_int(static_cast<std::int64_t>(cmd.value.size())) : if_present);
    }
    case ModelCommand::Kind::incr:
    case ModelCommand::Kind::publish:
    case ModelCommand::Kind::rewrite:
    case ModelCommand::Kind::audit:
      break;
  }
  return "";
}

// The states a key may be in after cmd, if it ran somewhere in
// [sent_ms, lost_ms] (two when its expiry may or may not have come first).
std::vector<KvModel::Key> KvModel::after(const Key& k, const ModelCommand& cmd, std::int64_t sent_ms,
                                         std::int64_t lost_ms) const {
  switch (cmd.kind) {
    case ModelCommand::Kind::set:
      return {Key{cmd.value}};
    case ModelCommand::Kind::set_px:
      return {Key{cmd.value, sent_ms + cmd.px, lost_ms + cmd.px}};
    case ModelCommand::Kind::del:
      return {Key{}};
    case ModelCommand::Kind::append: {
      const Presence p = presence(k, sent_ms, lost_ms);
      std::vector<Key> out;
      if (p != Presence::absent) {
        Key longer = k;
        *longer.value += cmd.value;
        out.push_back(longer);
      }
      if (p != Presence::present) out.push_back(Key{cmd.value});
      return out;
    }
    default:
      return {k};  // reads leave it as it was
  }
}

// Commands of one connection run in order, so the unanswered ones that ran
// are a prefix of them: per key, the states after each prefix (the
// frontier moves one command at a time; every frontier is possible).
void KvModel::lose(const std::vector<ModelCommand>& unanswered, std::int64_t sent_ms, std::int64_t lost_ms) {
  std::map<std::string, std::vector<Key>> frontier;
  std::map<std::string, std::vector<std::int64_t>> counter_frontier;
  constexpr std::size_t most = 256;  // a bound for pathological pipelines of APPENDs
  for (const ModelCommand& cmd : unanswered) {
    if (cmd.kind == ModelCommand::Kind::incr) {
      auto [all, fresh] = maybe_counters_.try_emplace(cmd.key);
      if (fresh) all->second.push_back(counters_[cmd.key]);
      auto [now, first] = counter_frontier.try_emplace(cmd.key);
      if (first) now->second = all->second;
      for (std::int64_t& n : now->second) ++n;
      all->second.insert(all->second.end(), now->second.begin(), now->second.end());
      continue;
    }
    if (cmd.key.empty() || cmd.kind == ModelCommand::Kind::publish || cmd.kind == ModelCommand::Kind::audit) continue;
    auto [all, fresh] = maybe_keys_.try_emplace(cmd.key);
    if (fresh) all->second.push_back(keys_[cmd.key]);
    auto [now, first] = frontier.try_emplace(cmd.key);
    if (first) now->second = all->second;
    std::vector<Key> next;
    for (const Key& k : now->second) {
      for (Key& n : after(k, cmd, sent_ms, lost_ms)) next.push_back(std::move(n));
    }
    if (next.size() > most) next.resize(most);
    now->second = next;
    all->second.insert(all->second.end(), next.begin(), next.end());
    if (all->second.size() > 4 * most) all->second.erase(all->second.begin() + 1, all->second.end() - 4 * most);
  }
}

std::vector<ModelCommand> KvModel::audit() const {
  std::vector<ModelCommand> out;
  auto get = [&out](const std::string& key) {
    out.push_back({ModelCommand::Kind::audit, key, {}, 0, resp_command({"GET", key})});
  };
  for (int i = 0; i < keys_per_client; ++i) get("c" + std::to_string(client_) + ":k" + std::to_string(i));
  for (int i = 0; i < counters_per_client; ++i) get("c" + std::to_string(client_) + ":n" + std::to_string(i));
  return out;
}

std::string KvModel::audit_counter(const ModelCommand& cmd, const std::string& reply) {
  auto it = maybe_counters_.find(cmd.key);
  const std::vector<std::int64_t> possible = it != maybe_counters_.end() ? it->second
                                                                         : std::vector<std::int64_t>{counters_[cmd.key]};
  std::string expected;
  for (std::int64_t n : possible) {
    const std::string want = n == 0 ? resp_bulk(std::nullopt) : resp_bulk(std::to_string(n));
    if (reply == want) {
      counters_[cmd.key] = n;
      if (it != maybe_counters_.end()) maybe_counters_.erase(it);
      return "";
    }
    expected += (expected.empty() ? "" : " or ") + shown(want, 20);
  }
  return "client " + std::to_string(client_) + ": after a restart or reconnect " + cmd.key + " is " +
         shown(reply, 40) + ", expected " + expected + " (an acknowledged INCR lost, or one invented)";
}

std::string KvModel::settle_audit(const ModelCommand& cmd, const std::string& reply, std::int64_t sent_ms,
                                  std::int64_t replied_ms) {
  if (cmd.key.find(":n") != std::string::npos) return audit_counter(cmd, reply);
  auto it = maybe_keys_.find(cmd.key);
  const std::vector<Key> possible = it != maybe_keys_.end() ? it->second : std::vector<Key>{keys_[cmd.key]};
  std::string expected;
  for (const Key& k : possible) {
    const Presence p = presence(k, sent_ms, replied_ms);
    if (p != Presence::absent && reply == resp_bulk(k.value)) {
      keys_[cmd.key] = k;
    } else if (p != Presence::present && reply == resp_bulk(std::nullopt)) {
      keys_[cmd.key] = Key{};
    } else {
      expected += (expected.empty() ? "" : " or ") + shown(resp_bulk(k.value), 30);
      continue;
    }
    if (it != maybe_keys_.end()) maybe_keys_.erase(it);
    return "";
  }
  return "client " + std::to_string(client_) + ": after a restart or reconnect " + cmd.key + " is " +
         shown(reply, 60) + ", expected " + expected + " (an acknowledged write lost, or one invented)";
}

}  // namespace duet::kv::sim
