#include "kv/command_table.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace duet::kv {
namespace {

// Names are looked up once per command, so the lookup must not copy or
// lower-case the name: it packs the name's first 8 bytes into a word, hashes that
// word with ASCII case folded away, and compares it to the table's word with a
// mask that makes exactly the letters case-insensitive. Longer names compare
// their tail byte by byte. Open addressing, linear probing, 512 slots for ~200
// names: probes are short.
constexpr std::size_t slot_bits = 9;
constexpr std::size_t slot_count = std::size_t{1} << slot_bits;
constexpr std::uint64_t case_bits = 0x2020202020202020ull;  // 0x20: the ASCII case bit, per byte

// The first (up to) 8 bytes of `name`, little-endian (x86-64), zero-padded.
// Whole-word loads, never past the name's end: 4..7 bytes are two
// overlapping 4-byte loads (the overlap ORs equal bytes).
static_assert(std::endian::native == std::endian::little, "head_word and Slot::letters assume it");
std::uint64_t head_word(std::string_view name) noexcept {
  const char* p = name.data();
  const std::size_t n = name.size();
  std::uint64_t w = 0;
  if (n >= 8) {
    std::memcpy(&w, p, 8);
  } else if (n >= 4) {
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    std::memcpy(&low, p, 4);
    std::memcpy(&high, p + n - 4, 4);
    w = low | std::uint64_t{high} << (8 * (n - 4));
  } else {
    for (std::size_t i = 0; i < n; ++i) w |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  }
  return w;
}

std::size_t slot_of(std::uint64_t head, std::size_t size) noexcept {
  return static_cast<std::size_t>((((head | case_bits) ^ size) * 0x9E3779B97F4A7C15ull) >> (64 - slot_bits));
}

bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }

struct Slot {
  const Command* cmd = nullptr;
  std::uint64_t head = 0;     // the lower-case name's head_word
  std::uint64_t letters = 0;  // 0x20 in each byte of `head` that is a letter
  std::size_t size = 0;

  // c | 0x20 equals a lower-case letter exactly when c is that letter in either
  // case; every other byte must be equal as it is.
  bool matches(std::string_view sent, std::uint64_t sent_head) const noexcept {
    if (sent.size() != size || (sent_head | letters) != head) return false;
    for (std::size_t i = 8; i < size; ++i) {
      char c = sent[i];
      char lower = cmd->name[i];
      if (c != lower && !(is_lower(lower) && (c | 0x20) == lower)) return false;
    }
    return true;
  }
};

struct Table {
  std::vector<const Command*> list;
  std::array<Slot, slot_count> slots{};

  [[gnu::noinline]] Table() {  // kept out of find_command, which then needs no stack frame
    for (auto family : {connection_commands(), string_commands(), counter_commands(), keyspace_commands(),
                        expire_commands(), server_commands(), introspection_commands(), aof_commands(),
                        pubsub_commands(), list_commands(), hash_commands(), set_commands(), zset_commands(),
                        zset_range_commands(), zset_pop_commands(), zset_algebra_commands(),
                        zset_random_commands(), geo_commands(), hll_commands(), bitmap_commands(), object_commands(),
                        sort_commands(), multi_commands(), blocking_commands(), wait_commands()}) {
      for (const Command& cmd : family) {
        list.push_back(&cmd);
        add(cmd);
      }
    }
  }

  void add(const Command& cmd) {
    std::uint64_t head = head_word(cmd.name);
    std::size_t s = slot_of(head, cmd.name.size());
    for (; slots[s].cmd != nullptr; s = (s + 1) & (slot_count - 1)) {
      if (slots[s].cmd->name == cmd.name) return;  // the first of two equal names wins
    }
    std::uint64_t letters = 0;
    for (std::size_t i = 0; i < cmd.name.size() && i < 8; ++i) {
      if (is_lower(cmd.name[i])) letters |= std::uint64_t{0x20} << (8 * i);
    }
    slots[s] = Slot{&cmd, head, letters, cmd.name.size()};
  }
};

[[gnu::always_inline]] inline const Table& table() {  // inlined: find_command pays only the guard
  static const Table instance;
  return instance;
}

}  // namespace

const Command* find_command(std::string_view name) noexcept {
  const auto& slots = table().slots;
  const std::uint64_t head = head_word(name);
  for (std::size_t s = slot_of(head, name.size());; s = (s + 1) & (slot_count - 1)) {
    const Slot& slot = slots[s];
    if (slot.cmd == nullptr || slot.matches(name, head)) return slot.cmd;
  }
}

std::span<const Command* const> all_commands() noexcept { return table().list; }

void CommandContext::log_instead(std::span<const std::string_view> command) {
  if (logged_instead == nullptr) {
    logged_instead = &server.log_scratch();
    logged_instead->clear();
  }
  if (command.empty()) return;
  logged_instead->append("*").append(std::to_string(command.size())).append("\r\n");
  for (std::string_view arg : command) {
    logged_instead->append("$").append(std::to_string(arg.size())).append("\r\n").append(arg).append("\r\n");
  }
}

}  // namespace duet::kv
