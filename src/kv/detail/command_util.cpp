#include "kv/detail/command_util.hpp"

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

}  // namespace duet::kv::detail
