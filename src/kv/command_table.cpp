#include "kv/command_table.hpp"

#include <absl/container/flat_hash_map.h>

#include <vector>

namespace duet::kv {
namespace {

struct Table {
  std::vector<const Command*> list;
  absl::flat_hash_map<std::string_view, const Command*> by_name;

  Table() {
    for (auto family : {connection_commands(), string_commands(), counter_commands(), keyspace_commands(),
                        expire_commands(), server_commands(), introspection_commands(), aof_commands()}) {
      for (const Command& cmd : family) {
        list.push_back(&cmd);
        by_name.emplace(cmd.name, &cmd);
      }
    }
  }
};

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

const Command* find_command(std::string_view name) noexcept {
  char lower[32];
  if (name.size() > sizeof(lower)) return nullptr;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    lower[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
  }
  const auto& by_name = table().by_name;
  auto it = by_name.find(std::string_view(lower, name.size()));
  return it == by_name.end() ? nullptr : it->second;
}

std::span<const Command* const> all_commands() noexcept { return table().list; }

}  // namespace duet::kv
