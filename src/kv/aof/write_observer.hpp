// duet::kv::WriteObserver — the hook through which write commands leave the
// sans-I/O core (the append-only file today; replication could use it too).
//
// Contract
// - ServerState holds at most one observer (set_write_observer); Session calls
//   it around every command flagged cmd_write: before_write() just before the
//   handler runs, after_write() just after, with the reply bytes the handler
//   appended. Neither may do I/O or reply; they only record.
// - log_block() logs a transaction's writes, translated where each ran
//   (kv/multi/transaction.hpp), as one block: wrapped in MULTI ... EXEC when it
//   holds two or more commands (Redis 7.0's execCommand propagation), so a
//   replay applies all or none of it.
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

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace duet::kv {

// A transaction's records: each run in its database, in order.
struct LoggedBlock {
  struct Run {
    int db;
    std::string records;
  };
  std::vector<Run> runs;
  std::size_t commands = 0;  // commands that produced records

  void add(int db, std::string_view records) {
    if (records.empty()) return;
    ++commands;
    if (runs.empty() || runs.back().db != db) runs.push_back(Run{db, {}});
    runs.back().records.append(records);
  }
  // emit(db, bytes) for each piece in log order: MULTI, the runs, EXEC
  // (MULTI/EXEC only around two or more commands).
  template <class Emit>
  void emit(Emit&& emit) const {
    if (runs.empty()) return;
    const bool wrap = commands > 1;
    if (wrap) emit(runs.front().db, std::string_view("*1\r\n$5\r\nMULTI\r\n"));
    for (const Run& run : runs) emit(run.db, std::string_view(run.records));
    if (wrap) emit(runs.back().db, std::string_view("*1\r\n$4\r\nEXEC\r\n"));
  }
};

struct Command;
struct CommandContext;
struct Entry;

class WriteObserver {
 public:
  virtual void before_write(const Command& cmd, CommandContext& ctx) = 0;
  virtual void after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) = 0;
  virtual void log_block(const LoggedBlock& block) = 0;
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
