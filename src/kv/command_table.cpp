#include "kv/command_table.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace duet::kv {
namespace {

// Names are looked up once per command, so the lookup hashes a few bytes of the
// name as sent, folding ASCII case on the fly, into an open-addressing table of
// lower-case names: no copy, no lower-casing pass, no general-purpose hash.
constexpr std::size_t slot_bits = 9;  // 512 slots for ~250 commands: short probes
constexpr std::size_t slot_count = std::size_t{1} << slot_bits;

constexpr std::array<unsigned char, 256> fold_table = [] {
  std::array<unsigned char, 256> t{};
  for (std::size_t c = 0; c < t.size(); ++c) t[c] = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return t;
}();

// ASCII lower case by table lookup: cheaper than the compare-and-branch.
unsigned char fold(char c) noexcept { return fold_table[static_cast<unsigned char>(c)]; }

// Length, first, middle and last byte: enough to tell the ~80 names apart
// (collisions just probe further) at a cost independent of the name's length.
std::size_t slot_of(std::string_view name) noexcept {
  if (name.empty()) return 0;
  std::size_t n = name.size();
  std::uint64_t h = (n << 24) | (std::uint64_t{fold(name[0])} << 16) | (std::uint64_t{fold(name[n / 2])} << 8) |
                    fold(name[n - 1]);
  return static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ull) >> (64 - slot_bits));
}

// `lower` is a table name (already lower case).
bool same_name(std::string_view sent, std::string_view lower) noexcept {
  if (sent.size() != lower.size()) return false;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    if (fold(sent[i]) != static_cast<unsigned char>(lower[i])) return false;
  }
  return true;
}

struct Table {
  std::vector<const Command*> list;
  std::array<const Command*, slot_count> slots{};

  Table() {
    for (auto family : {connection_commands(), string_commands(), counter_commands(), keyspace_commands(),
                        expire_commands(), server_commands(), introspection_commands(), aof_commands()}) {
      for (const Command& cmd : family) {
        list.push_back(&cmd);
        std::size_t s = slot_of(cmd.name);
        while (slots[s] != nullptr && slots[s]->name != cmd.name) s = (s + 1) & (slot_count - 1);
        if (slots[s] == nullptr) slots[s] = &cmd;  // the first of two equal names wins
      }
    }
  }
};

[[gnu::always_inline]] inline const Table& table() {  // inlined: find_command pays only the guard
  static const Table instance;
  return instance;
}

}  // namespace

const Command* find_command(std::string_view name) noexcept {
  const auto& slots = table().slots;
  for (std::size_t s = slot_of(name);; s = (s + 1) & (slot_count - 1)) {
    const Command* cmd = slots[s];
    if (cmd == nullptr || same_name(name, cmd->name)) return cmd;
  }
}

std::span<const Command* const> all_commands() noexcept { return table().list; }

}  // namespace duet::kv
