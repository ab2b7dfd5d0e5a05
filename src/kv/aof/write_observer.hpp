// duet::kv::WriteObserver — the hook through which write commands leave the
// sans-I/O core (the append-only file today; replication could use it too).
//
// Contract
// - ServerState holds at most one observer (set_write_observer); Session calls
//   it around every command flagged cmd_write: before_write() just before the
//   handler runs, after_write() just after, with the reply bytes the handler
//   appended. Neither may do I/O or reply; they only record.
// - on_expired() is called by the Keyspace hook with each key that expires
//   (lazily or by the active cycle) just before it is removed.
// - request_rewrite() serves BGREWRITEAOF: true and a status text when a
//   rewrite started, false and an error text otherwise.
// - info() appends the "key:value\r\n" lines of INFO persistence.
// - One thread: the server's event loop. The observer outlives its installation.
//
//   struct Counter : WriteObserver { int n = 0; void after_write(...) override { ++n; } ... };
//   state.set_write_observer(&counter);
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace duet::kv {

struct Command;
struct CommandContext;
struct Entry;

class WriteObserver {
 public:
  virtual void before_write(const Command& cmd, CommandContext& ctx) = 0;
  virtual void after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) = 0;
  virtual void on_expired(int db, const Entry& entry) = 0;
  virtual bool request_rewrite(std::string& message) = 0;
  virtual void info(std::string& out) const = 0;

 protected:
  WriteObserver() = default;
  WriteObserver(const WriteObserver&) = default;
  WriteObserver& operator=(const WriteObserver&) = default;
  ~WriteObserver() = default;
};

}  // namespace duet::kv
