// KvModel: command mix and reply rules. The mix leans to reads and plain
// writes, as a cache's traffic does, with enough PX, APPEND and DEL to cross
// expiry with every other command, and PUBLISH for the pub/sub path.
#include "kv/sim/kv_model.hpp"

#include "io/sim_world.hpp"

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
    return "client " + std::to_string(client_) + ": " + cmd.bytes.substr(0, 60) + " replied " + reply.substr(0, 80) +
           " expected " + expected;
  };
  if (cmd.kind == ModelCommand::Kind::incr) {
    const std::string want = resp_int(++counters_[cmd.key]);
    return reply == want ? "" : wrong(want);
  }
  if (cmd.kind == ModelCommand::Kind::publish) {
    ++published_;
    return reply == resp_int(1) ? "" : wrong(resp_int(1));  // one subscriber listens throughout
  }
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
      break;
  }
  return "";
}

}  // namespace duet::kv::sim
