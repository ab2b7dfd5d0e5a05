// Set commands. TODO(issue 25): the table below is filled in by the set module.
#include "kv/command_table.hpp"

namespace duet::kv {

std::span<const Command> set_commands() noexcept { return {}; }

}  // namespace duet::kv
