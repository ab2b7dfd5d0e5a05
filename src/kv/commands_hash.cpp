// Hash commands. TODO(issue 25): the table below is filled in by the hash module.
#include "kv/command_table.hpp"

namespace duet::kv {

std::span<const Command> hash_commands() noexcept { return {}; }

}  // namespace duet::kv
