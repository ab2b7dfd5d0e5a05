#include "kv/detail/command_util.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace duet::kv::detail {

void unknown_subcommand(CommandContext& ctx, std::string_view command_upper) {
  std::string message = "ERR unknown subcommand '";
  std::string_view sub = ctx.argv[1];
  std::size_t n = 0;
  while (n < sub.size() && n < 128 && sub[n] != '\0') ++n;  // "%.128s"
  message.append(sub.substr(0, n)).append("'. Try ").append(command_upper).append(" HELP.");
  ctx.reply.error(message);
}

void append_lower(std::string& out, std::string_view text) {
  for (char c : text) out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c);
}

bool parse_scan_cursor(std::string_view text, std::uint64_t& cursor) {
  const std::string buf(text);  // strtoull's terminator; a cursor of any length is read
  char* end = nullptr;
  errno = 0;
  cursor = std::strtoull(buf.c_str(), &end, 10);
  return std::isspace(static_cast<unsigned char>(buf[0])) == 0 && *end == '\0' && errno != ERANGE;
}

bool parse_scan_args(CommandContext& ctx, ScanArgs& args) {
  for (std::size_t i = 3; i < ctx.argv.size(); i += 2) {
    const bool has_value = ctx.argv.size() - i >= 2;
    if (equals_ci(ctx.argv[i], "count") && has_value) {
      if (!int_arg(ctx, ctx.argv[i + 1], args.count)) return false;
      if (args.count < 1) return ctx.reply.error(err_syntax), false;
    } else if (equals_ci(ctx.argv[i], "match") && has_value) {
      args.pattern = ctx.argv[i + 1];
      args.has_pattern = args.pattern != "*";
    } else {
      return ctx.reply.error(err_syntax), false;
    }
  }
  return true;
}

namespace {

// getRangeLongFromObjectOrReply(1, LONG_MAX, message).
bool positive_arg(CommandContext& ctx, std::string_view text, std::int64_t& out, std::string_view message) {
  if (parse_i64(text, out) && out >= 1) return true;
  ctx.reply.error(message);
  return false;
}

}  // namespace

bool parse_mpop(CommandContext& ctx, std::size_t numkeys_at, std::string_view first_end, std::string_view second_end,
                MpopArgs& out) {
  std::int64_t numkeys = 0;
  if (!positive_arg(ctx, ctx.argv[numkeys_at], numkeys, "ERR numkeys should be greater than 0")) return false;
  if (static_cast<std::uint64_t>(numkeys) > ctx.argv.size() - numkeys_at - 2) {
    ctx.reply.error(err_syntax);
    return false;
  }
  out.first_key = numkeys_at + 1;
  out.where_at = out.first_key + static_cast<std::size_t>(numkeys);
  const std::string_view where = ctx.argv[out.where_at];
  if (!equals_ci(where, first_end) && !equals_ci(where, second_end)) {
    ctx.reply.error(err_syntax);
    return false;
  }
  out.first_end = equals_ci(where, first_end);
  std::int64_t count = -1;
  for (std::size_t j = out.where_at + 1; j < ctx.argv.size(); ++j) {
    if (count != -1 || !equals_ci(ctx.argv[j], "count") || j + 1 >= ctx.argv.size()) {
      ctx.reply.error(err_syntax);
      return false;
    }
    if (!positive_arg(ctx, ctx.argv[++j], count, "ERR count should be greater than 0")) return false;
  }
  out.count = count == -1 ? 1 : count;
  return true;
}

}  // namespace duet::kv::detail
