// Helpers for the AOF tests: a WriteObserver that records what the server
// would log (no files), and a full dump of a Store to compare two of them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "kv/aof/aof_buffer.hpp"
#include "kv/aof/aof_propagation.hpp"
#include "kv/aof/write_observer.hpp"
#include "kv/command_table.hpp"
#include "kv/server_state.hpp"
#include "kv/value/value_records.hpp"

namespace aoftest {

using namespace duet::kv;

// Logs like AofService does, into memory.
class Recorder final : public WriteObserver {
 public:
  explicit Recorder(ServerState& state) : state_(state) {
    state.set_write_observer(this);
    for (int db = 0; db < Store::db_count; ++db) {
      hooks_[static_cast<std::size_t>(db)] = {this, db};
      state.store().db(db).set_expire_hook(&Recorder::expired, &hooks_[static_cast<std::size_t>(db)]);
    }
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  ~Recorder() {
    state_.set_write_observer(nullptr);
    for (int db = 0; db < Store::db_count; ++db) state_.store().db(db).set_expire_hook(nullptr, nullptr);
  }

  void before_write(const Command&, CommandContext&) override {}
  void after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) override {
    AofBuffer staged;
    translate_write(cmd, ctx, reply, staged);
    log.append_records(ctx.client.db, staged.bytes());
  }
  void log_block(const LoggedBlock& block) override {
    block.emit([this](int db, std::string_view records) { log.append_records(db, records); });
  }
  void on_expired(int db, const Entry& entry) override {
    AofBuffer staged;
    expired_record(as_view(entry.key), staged);
    log.append_records(db, staged.bytes());
  }
  void info(std::string& out) const override { out += "aof_enabled:0\r\n"; }
  bool request_rewrite(std::string& message) override {
    message = "ERR not here";
    return false;
  }

  AofBuffer log;

 private:
  struct Hook {
    Recorder* self;
    int db;
  };
  static void expired(void* context, const Entry& entry) {
    auto* hook = static_cast<Hook*>(context);
    hook->self->on_expired(hook->db, entry);
  }
  ServerState& state_;
  std::array<Hook, Store::db_count> hooks_{};
};

// A value as text to compare: a string's bytes, an object's records.
inline std::string text_of(const Value& value) {
  if (value.is_string()) {
    Value::Scratch scratch;
    return std::string(value.str(scratch));
  }
  return ValueRecords::encode(value, "");
}

// (db, key) -> (value, expire_at) for every key alive at `now`.
using Dump = std::map<std::pair<int, std::string>, std::pair<std::string, std::int64_t>>;

inline Dump dump(ServerState& state, std::int64_t now) {
  Dump out;
  for (int db = 0; db < Store::db_count; ++db) {
    std::uint64_t cursor = 0;
    do {
      const Keyspace& keys = state.store().db(db);
      cursor = state.store().db(db).scan(cursor, 1000, 0, [&](Entry& e) {
        const std::int64_t at = keys.expire_at(e);
        if (at != Entry::no_expiry && now > at) return;
        out[{db, std::string(as_view(e.key))}] = {text_of(e.value), at};
      });
    } while (cursor != 0);
  }
  return out;
}

}  // namespace aoftest
