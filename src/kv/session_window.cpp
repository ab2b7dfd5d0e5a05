// Session's pipelining window: parse a pipeline's next commands ahead and
// start their keys' cache misses together (kv/detail/command_window.hpp).
#include <array>

#include "kv/detail/command_window.hpp"
#include "kv/detail/key_hash.hpp"
#include "kv/session.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/shard_dispatch.hpp"

namespace duet::kv {

// Parses up to max_commands complete commands from input.substr(from) into the
// window and prefetches their keys. Returns complete when the window holds at
// least one command; otherwise what the parser said of the first (the window
// is then empty, and only then does the parser keep a partial command's
// state: a later command's is dropped, so that it is parsed from its start
// whatever runs before it). Ends the window after a command that may change
// how the next ones parse (cmd_parse_barrier) and after an inline command,
// whose argument views the next parse would overwrite.
ParseStatus Session::parse_window(detail::CommandWindow& window, std::string_view input, std::size_t from) {
  window.size = 0;
  window.args.clear();
  parser_.set_authenticated(!server_.requires_auth() || client_.authenticated);
  parser_.set_max_bulk_len(server_.config().proto_max_bulk_len);
  std::size_t at = from;
  while (window.size < window.max_commands && at < input.size()) {
    const ParseStatus status = parser_.parse(input.substr(at));
    if (status != ParseStatus::complete) {
      if (window.size == 0) return status;
      parser_.reset();
      break;
    }
    const auto args = parser_.args();
    detail::CommandWindow::Parsed& command = window.commands[window.size++];
    command.first_arg = static_cast<std::uint32_t>(window.args.size());
    command.arg_count = static_cast<std::uint32_t>(args.size());
    command.end = at + parser_.consumed();
    command.command = args.empty() ? nullptr : find_command(args[0]);
    window.args.insert(window.args.end(), args.begin(), args.end());
    const bool inline_command = input[at] != '*';
    at = command.end;
    if (inline_command) break;
    if (command.command != nullptr && (command.command->flags & cmd_parse_barrier) != 0) break;
  }
  if (window.size >= 2) prefetch_window(window);
  return ParseStatus::complete;
}

// Starts the cache misses of the window's keys (each command's first
// argument: its key, for nearly every command) together. A lone request (P1)
// never pays for it.
void Session::prefetch_window(const detail::CommandWindow& window) const noexcept {
  std::array<std::string_view, detail::CommandWindow::max_commands> keys;
  std::size_t n = 0;
  for (std::size_t i = 0; i < window.size; ++i) {
    const detail::CommandWindow::Parsed& command = window.commands[i];
    if (command.arg_count >= 2) keys[n++] = window.args[command.first_arg + 1];
  }
  if (n < 2) return;
  const Keyspace& db = server_.store().db(client_.db);
  if (dispatch_ == nullptr) {
    db.prefetch(std::span(keys).first(n));
    return;
  }
  // Many shards: the keys of other shards are not here (their shard
  // prefetches its batch: RemoteBatch::run_all). The hash that picks the
  // shard is the one the lookup needs. Without this a sharded GET P16 spent
  // 3x the CPU of one thread's in the lookup's cache misses (perf).
  const KvShard& shard = dispatch_->shard();
  std::array<std::size_t, detail::CommandWindow::max_commands> own;
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t hash = detail::key_hash(keys[i]);
    if (hash_shard(hash, shard.count()) == shard.index()) own[m++] = hash;
  }
  if (m >= 2) db.prefetch_hashed(std::span(own).first(m));
}

}  // namespace duet::kv
