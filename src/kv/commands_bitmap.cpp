// Bitmap commands (Redis's bitops.c): SETBIT GETBIT BITCOUNT BITPOS BITOP
// BITFIELD BITFIELD_RO. A bitmap is a string value; a write grows it in place
// as a "raw" string (Value::resize_raw, Redis's sdsgrowzero), zero-filled. The
// bit algorithms live in kv/types/bitmap.hpp; this file parses, looks keys up
// and replies, in Redis's order of checks (so the same error wins).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/types/bitmap.hpp"

namespace duet::kv {
namespace detail {
void lcs_command(CommandContext& ctx);  // commands_lcs.cpp
}  // namespace detail
namespace {

using bitmap::BitRange;
using bitmap::FieldType;
using bitmap::Overflow;
using bitmap::Unit;
using detail::equals_ci;

constexpr std::string_view err_offset = "ERR bit offset is not an integer or out of range";
constexpr std::string_view err_bit_value = "ERR bit is not an integer or out of range";
constexpr std::string_view err_field_type =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";

using detail::read_key;  // lookupKeyRead: counts a hit or a miss

// getBitOffsetFromArgument: a bit offset below proto-max-bulk-len bytes; with
// `hash`, "#n" means the n-th field of `bits` bits (BITFIELD). A value is
// also kept below HeapString's 4 GiB limit, whatever proto-max-bulk-len says.
bool offset_arg(CommandContext& ctx, std::string_view text, bool hash, unsigned bits, std::uint64_t& out) {
  bool by_field = hash && !text.empty() && text[0] == '#';
  std::int64_t v = 0;
  if (!detail::parse_i64(text.substr(by_field ? 1 : 0), v)) {
    ctx.reply.error(err_offset);
    return false;
  }
  if (by_field) v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) * bits);  // wraps as Redis's does
  std::uint64_t limit = std::min<std::uint64_t>(ctx.server.config().proto_max_bulk_len, HeapString::max_capacity - 8);
  if (v < 0 || (static_cast<std::uint64_t>(v) >> 3) >= limit) {
    ctx.reply.error(err_offset);
    return false;
  }
  out = static_cast<std::uint64_t>(v);
  return true;
}

// lookupStringForBitCommand: the string at argv[1], created (event "new") or
// zero-padded so that bit `max_bit` exists, now raw; nullptr after a
// WRONGTYPE reply. `dirty`: created or grown, a change whatever the bits do.
char* grow_for_bits(CommandContext& ctx, std::uint64_t max_bit, std::size_t& size, bool& dirty) {
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (!detail::check_type(ctx, e, ValueType::string)) return nullptr;
  bool created = false;
  if (e == nullptr) {
    e = &ctx.db().upsert(ctx.argv[1], ctx.now, created);
    notify_keyspace_event(ctx, notify_new, "new", ctx.argv[1]);
  }
  const std::size_t old_size = e->value.string_size();
  size = std::max<std::size_t>(old_size, (max_bit >> 3) + 1);
  dirty = created || size != old_size;
  return e->value.resize_raw(size);
}

void setbit(CommandContext& ctx) {
  std::uint64_t offset = 0;
  if (!offset_arg(ctx, ctx.argv[2], false, 0, offset)) return;
  std::int64_t on = 0;
  if (!detail::parse_i64(ctx.argv[3], on) || (on & ~1) != 0) return ctx.reply.error(err_bit_value);
  std::size_t size = 0;
  bool dirty = false;
  char* bytes = grow_for_bits(ctx, offset, size, dirty);
  if (bytes == nullptr) return;
  const bool old = bitmap::set_bit(bytes, offset, on != 0);
  if (dirty || old != (on != 0)) notify_keyspace_event(ctx, notify_string, "setbit", ctx.argv[1]);
  ctx.reply.integer(old ? 1 : 0);
}

// The string at argv[1] for a read; false after replying `absent` (no such
// key) or WRONGTYPE. An integer-encoded value is formatted into `scratch`.
bool read_bitmap(CommandContext& ctx, std::int64_t absent, Value::Scratch& scratch, std::string_view& bytes) {
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (e == nullptr) {
    ctx.reply.integer(absent);
    return false;
  }
  if (!detail::check_type(ctx, e, ValueType::string)) return false;
  bytes = e->value.str(scratch);
  return true;
}

void getbit(CommandContext& ctx) {
  std::uint64_t offset = 0;
  if (!offset_arg(ctx, ctx.argv[2], false, 0, offset)) return;
  Value::Scratch scratch;
  std::string_view bytes;
  if (read_bitmap(ctx, 0, scratch, bytes)) ctx.reply.integer(bitmap::get_bit(bytes, offset) ? 1 : 0);
}

// BYTE or BIT; false after a syntax error reply.
bool unit_arg(CommandContext& ctx, std::string_view text, Unit& unit) {
  if (equals_ci(text, "bit")) {
    unit = Unit::bit;
  } else if (equals_ci(text, "byte")) {
    unit = Unit::byte;
  } else {
    ctx.reply.error(detail::err_syntax);
    return false;
  }
  return true;
}

// BITCOUNT key [start end [BYTE|BIT]]
void bitcount(CommandContext& ctx) {
  Value::Scratch scratch;
  std::string_view bytes;
  if (!read_bitmap(ctx, 0, scratch, bytes)) return;
  std::int64_t start = 0;
  std::int64_t end = -1;
  Unit unit = Unit::byte;
  const std::size_t argc = ctx.argv.size();
  if (argc == 4 || argc == 5) {
    if (!detail::int_arg(ctx, ctx.argv[2], start) || !detail::int_arg(ctx, ctx.argv[3], end)) return;
    if (start < 0 && end < 0 && start > end) return ctx.reply.integer(0);  // before the unit is read, as Redis
    if (argc == 5 && !unit_arg(ctx, ctx.argv[4], unit)) return;
  } else if (argc != 2) {
    return ctx.reply.error(detail::err_syntax);
  }
  BitRange range;
  if (!bitmap::resolve_range(bytes.size(), start, end, unit, range)) return ctx.reply.integer(0);
  ctx.reply.integer(static_cast<std::int64_t>(bitmap::count_bits(bytes, range)));
}

// BITPOS key bit [start [end [BYTE|BIT]]]
void bitpos(CommandContext& ctx) {
  std::int64_t bit = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], bit)) return;
  if (bit != 0 && bit != 1) return ctx.reply.error("ERR The bit argument must be 1 or 0.");
  Value::Scratch scratch;
  std::string_view bytes;
  if (!read_bitmap(ctx, bit != 0 ? -1 : 0, scratch, bytes)) return;  // an absent key is all zeros
  std::int64_t start = 0;
  std::int64_t end = -1;
  Unit unit = Unit::byte;
  const std::size_t argc = ctx.argv.size();
  if (argc > 6) return ctx.reply.error(detail::err_syntax);
  if (argc >= 4 && !detail::int_arg(ctx, ctx.argv[3], start)) return;
  if (argc == 6 && !unit_arg(ctx, ctx.argv[5], unit)) return;
  if (argc >= 5 && !detail::int_arg(ctx, ctx.argv[4], end)) return;
  BitRange range;
  if (!bitmap::resolve_range(bytes.size(), start, end, unit, range)) return ctx.reply.integer(-1);
  std::int64_t pos = bitmap::find_bit(bytes, bit != 0, range);
  // No clear bit: without an explicit end the string continues with zeros.
  if (pos < 0 && bit == 0 && argc < 5) pos = static_cast<std::int64_t>(range.last + 1);
  ctx.reply.integer(pos);
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]
void bitop(CommandContext& ctx) {
  std::string_view name = ctx.argv[1];
  bitmap::BitOp op{};
  if (equals_ci(name, "and")) {
    op = bitmap::BitOp::bit_and;
  } else if (equals_ci(name, "or")) {
    op = bitmap::BitOp::bit_or;
  } else if (equals_ci(name, "xor")) {
    op = bitmap::BitOp::bit_xor;
  } else if (equals_ci(name, "not")) {
    op = bitmap::BitOp::bit_not;
  } else {
    return ctx.reply.error(detail::err_syntax);
  }
  if (op == bitmap::BitOp::bit_not && ctx.argv.size() != 4) {
    return ctx.reply.error("ERR BITOP NOT must be called with a single source key.");
  }
  const std::size_t count = ctx.argv.size() - 3;
  std::vector<Value::Scratch> scratch(count);  // an integer-encoded source is formatted here
  std::vector<std::string_view> sources(count);
  for (std::size_t j = 0; j < count; ++j) {
    Entry* e = read_key(ctx, ctx.argv[j + 3]);
    if (!detail::check_type(ctx, e, ValueType::string)) return;
    if (e != nullptr) sources[j] = e->value.str(scratch[j]);
  }
  const std::string result = bitmap::bit_op(op, sources);
  std::string_view dest = ctx.argv[2];
  if (result.empty()) {
    // every source empty: the destination is deleted
    if (ctx.db().erase(dest, ctx.now)) notify_keyspace_event(ctx, notify_generic, "del", dest);
    return ctx.reply.integer(0);
  }
  bool created = false;
  Entry& e = ctx.db().upsert(dest, ctx.now, created);
  e.value.reset();  // setKey: a new raw string, whatever the key held, without its TTL
  std::memcpy(e.value.resize_raw(result.size()), result.data(), result.size());
  if (e.has_expiry) ctx.db().set_expire(e, Entry::no_expiry);
  if (created) notify_keyspace_event(ctx, notify_new, "new", dest);
  notify_keyspace_event(ctx, notify_string, "set", dest);
  ctx.reply.integer(static_cast<std::int64_t>(result.size()));
}

// --- BITFIELD ---

struct FieldOp {
  enum class Kind : std::uint8_t { get, set, incrby };
  Kind kind = Kind::get;
  FieldType type;
  Overflow overflow = Overflow::wrap;
  std::uint64_t offset = 0;
  std::int64_t arg = 0;  // SET's value or INCRBY's increment
};

// getBitfieldTypeFromArgument: i1..i64 or u1..u63.
bool field_type_arg(CommandContext& ctx, std::string_view text, FieldType& type) {
  std::int64_t bits = 0;
  bool ok = !text.empty() && (text[0] == 'i' || text[0] == 'u') && detail::parse_i64(text.substr(1), bits);
  type.is_signed = ok && text[0] == 'i';
  if (!ok || bits < 1 || bits > (type.is_signed ? 64 : 63)) {
    ctx.reply.error(err_field_type);
    return false;
  }
  type.bits = static_cast<unsigned>(bits);
  return true;
}

bool overflow_arg(CommandContext& ctx, std::string_view text, Overflow& mode) {
  if (equals_ci(text, "wrap")) {
    mode = Overflow::wrap;
  } else if (equals_ci(text, "sat")) {
    mode = Overflow::sat;
  } else if (equals_ci(text, "fail")) {
    mode = Overflow::fail;
  } else {
    ctx.reply.error("ERR Invalid OVERFLOW type specified");
    return false;
  }
  return true;
}

// One GET/SET/INCRBY at argv[j] with its `type offset [value]`.
bool field_op_arg(CommandContext& ctx, std::size_t j, FieldOp& op) {
  if (!field_type_arg(ctx, ctx.argv[j + 1], op.type)) return false;
  if (!offset_arg(ctx, ctx.argv[j + 2], true, op.type.bits, op.offset)) return false;
  return op.kind == FieldOp::Kind::get || detail::int_arg(ctx, ctx.argv[j + 3], op.arg);
}

// Parses every subcommand before any runs, as Redis; false after an error reply.
bool parse_field_ops(CommandContext& ctx, std::vector<FieldOp>& ops) {
  Overflow overflow = Overflow::wrap;
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    const std::size_t more = ctx.argv.size() - j - 1;
    std::string_view sub = ctx.argv[j];
    FieldOp op;
    if (equals_ci(sub, "overflow") && more >= 1) {
      if (!overflow_arg(ctx, ctx.argv[++j], overflow)) return false;
      continue;
    }
    if (equals_ci(sub, "get") && more >= 2) {
      op.kind = FieldOp::Kind::get;
    } else if (equals_ci(sub, "set") && more >= 3) {
      op.kind = FieldOp::Kind::set;
    } else if (equals_ci(sub, "incrby") && more >= 3) {
      op.kind = FieldOp::Kind::incrby;
    } else {
      ctx.reply.error(detail::err_syntax);
      return false;
    }
    if (!field_op_arg(ctx, j, op)) return false;
    op.overflow = overflow;
    ops.push_back(op);
    j += op.kind == FieldOp::Kind::get ? 2 : 3;
  }
  return true;
}

// SET replies the old value, INCRBY the new one; FAIL on overflow writes
// nothing and replies nil. True when it wrote to a string just created or
// grown (`dirty`) or changed the field's value: Redis's `changes`.
bool run_field_write(CommandContext& ctx, const FieldOp& op, char* bytes, std::size_t size, bool dirty) {
  std::int64_t old = bitmap::read_field({bytes, size}, op.offset, op.type);
  bool is_set = op.kind == FieldOp::Kind::set;
  std::int64_t result = 0;
  bool fits = bitmap::add_with_overflow(is_set ? op.arg : old, is_set ? 0 : op.arg, op.type, op.overflow, result);
  if (!fits && op.overflow == Overflow::fail) return ctx.reply.null(), false;
  ctx.reply.integer(is_set ? old : result);
  bitmap::write_field(bytes, op.offset, op.type, result);
  return dirty || old != result;
}

// BITFIELD with GETs only: reads the key as it is (an absent key reads as zeros).
void bitfield_read(CommandContext& ctx, const std::vector<FieldOp>& ops) {
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (!detail::check_type(ctx, e, ValueType::string)) return;
  Value::Scratch scratch;
  std::string_view bytes = e != nullptr ? e->value.str(scratch) : std::string_view{};
  ctx.reply.array(ops.size());
  for (const FieldOp& op : ops) ctx.reply.integer(bitmap::read_field(bytes, op.offset, op.type));
}

void bitfield_generic(CommandContext& ctx, bool read_only_command) {
  std::vector<FieldOp> ops;
  if (!parse_field_ops(ctx, ops)) return;
  std::uint64_t max_bit = 0;
  bool writes = false;
  for (const FieldOp& op : ops) {
    if (op.kind == FieldOp::Kind::get) continue;
    writes = true;
    max_bit = std::max<std::uint64_t>(max_bit, op.offset + op.type.bits - 1);
  }
  if (!writes) return bitfield_read(ctx, ops);
  if (read_only_command) return ctx.reply.error("ERR BITFIELD_RO only supports the GET subcommand");
  std::size_t size = 0;
  bool dirty = false;
  char* bytes = grow_for_bits(ctx, max_bit, size, dirty);  // even when every write fails (OVERFLOW FAIL), as Redis
  if (bytes == nullptr) return;
  ctx.reply.array(ops.size());
  bool changed = false;  // Redis's `changes`: a write that grew the string or changed its field
  for (const FieldOp& op : ops) {
    if (op.kind == FieldOp::Kind::get) {
      ctx.reply.integer(bitmap::read_field({bytes, size}, op.offset, op.type));
    } else {
      changed = run_field_write(ctx, op, bytes, size, dirty) || changed;
    }
  }
  if (changed) notify_keyspace_event(ctx, notify_string, "setbit", ctx.argv[1]);
}

void bitfield(CommandContext& ctx) { bitfield_generic(ctx, false); }
void bitfield_ro(CommandContext& ctx) { bitfield_generic(ctx, true); }

constexpr std::uint32_t wm = cmd_write | cmd_denyoom;
constexpr std::uint32_t r = cmd_readonly;
constexpr Command commands[] = {
    {"setbit", 4, wm, setbit, 1, 1, 1, "bitmap", "Sets or clears the bit at offset in the string value stored at key"},
    {"getbit", 3, r | cmd_fast, getbit, 1, 1, 1, "bitmap", "Returns the bit value at offset in the string value stored at key"},
    {"bitcount", -2, r, bitcount, 1, 1, 1, "bitmap", "Count set bits in a string"},
    {"bitpos", -3, r, bitpos, 1, 1, 1, "bitmap", "Find first bit set or clear in a string"},
    {"bitop", -4, wm, bitop, 2, -1, 1, "bitmap", "Perform bitwise operations between strings", ShardRoute::gather},
    {"bitfield", -2, wm, bitfield, 1, 1, 1, "bitmap", "Perform arbitrary bitfield integer operations on strings"},
    {"bitfield_ro", -2, r | cmd_fast, bitfield_ro, 1, 1, 1, "bitmap", "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD"},
    {"lcs", -3, r, detail::lcs_command, 1, 2, 1, "string", "Find longest common substring", ShardRoute::gather},
};

}  // namespace

std::span<const Command> bitmap_commands() noexcept { return commands; }

}  // namespace duet::kv
