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

}  // namespace duet::kv::detail
