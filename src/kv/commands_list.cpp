// List commands. TODO(issue 25): the table below is filled in by the list module.
#include "kv/command_table.hpp"

namespace duet::kv {

std::span<const Command> list_commands() noexcept { return {}; }

}  // namespace duet::kv
