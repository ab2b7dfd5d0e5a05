// duet::kv::load_aof — replays an append-only file into a ServerState at start.
//
// Contract
// - replay_aof(state, bytes) parses RESP multibulk records and runs each through
//   the command table (the same handlers as clients, no observer: nothing is
//   logged again); a MULTI ... EXEC block (a transaction) applies whole at its
//   EXEC. Lines starting with '#' (Redis 7 timestamp annotations) are
//   skipped. The clock is frozen while loading (now = 0), so no key expires
//   half-way through the replay: keys whose absolute expiry has passed are
//   removed after loading, by lazy or active expiry, exactly as Redis does.
// - The outcome says what happened; nothing throws for bad content:
//     loaded     every record complete and known;
//     truncated  the last record is incomplete (a crash mid-write), or the file
//                ends inside a MULTI ... EXEC block: everything before it was
//                applied, valid_bytes says where the good data ends;
//     corrupt    a malformed record, an unknown command or a wrong argument
//                count before the end: message names the byte offset. Records
//                before it have been applied; callers refuse to start.
// - load_aof(state, path) reads the file in 4 MiB windows, never whole (missing
//   → status missing, nothing
//   applied) and, for a truncated one, cuts the file at valid_bytes so new
//   records do not follow garbage. Throws std::system_error on I/O errors.
// - Main thread, before the server accepts connections.
//
//   AofLoadResult r = load_aof(state, "appendonly.aof");
//   if (r.status == AofLoadStatus::corrupt) throw std::runtime_error(r.message);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kv/server_state.hpp"

namespace duet::kv {

enum class AofLoadStatus { missing, loaded, truncated, corrupt };

struct AofLoadResult {
  AofLoadStatus status = AofLoadStatus::missing;
  std::uint64_t commands = 0;     // records applied
  std::uint64_t valid_bytes = 0;  // length of the complete, applied prefix
  std::uint64_t file_bytes = 0;
  std::string message;            // truncated / corrupt: what and at which offset
};

[[nodiscard]] AofLoadResult replay_aof(ServerState& state, std::string_view bytes);
[[nodiscard]] AofLoadResult load_aof(ServerState& state, const std::string& path);

}  // namespace duet::kv
