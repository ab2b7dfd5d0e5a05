#include "kv/detail/expire_arg.hpp"

#include <climits>
#include <string>

#include "kv/detail/command_util.hpp"

namespace duet::kv::detail {
namespace {

bool set_unit(SetOptions& opt, ExpireUnit unit, std::string_view arg) {
  // Any other unit, KEEPTTL or PERSIST already given makes it a syntax error;
  // repeating the same unit is allowed (the last one wins), as in Redis.
  if (opt.keepttl || opt.persist || (opt.unit != ExpireUnit::none && opt.unit != unit)) return false;
  opt.unit = unit;
  opt.expire_arg = arg;
  return true;
}

}  // namespace

bool parse_set_options(CommandContext& ctx, std::size_t first, bool is_set, SetOptions& opt) {
  auto argv = ctx.argv;
  for (std::size_t j = first; j < argv.size(); ++j) {
    std::string_view o = argv[j];
    bool has_next = j + 1 < argv.size();
    bool ok = true;
    if (is_set && equals_ci(o, "nx") && !opt.xx) {
      opt.nx = true;
    } else if (is_set && equals_ci(o, "xx") && !opt.nx) {
      opt.xx = true;
    } else if (is_set && equals_ci(o, "get")) {
      opt.get = true;
    } else if (is_set && equals_ci(o, "keepttl") && opt.unit == ExpireUnit::none) {
      opt.keepttl = true;
    } else if (!is_set && equals_ci(o, "persist") && opt.unit == ExpireUnit::none) {
      opt.persist = true;
    } else if (has_next && equals_ci(o, "ex")) {
      ok = set_unit(opt, ExpireUnit::ex, argv[++j]);
    } else if (has_next && equals_ci(o, "px")) {
      ok = set_unit(opt, ExpireUnit::px, argv[++j]);
    } else if (has_next && equals_ci(o, "exat")) {
      ok = set_unit(opt, ExpireUnit::exat, argv[++j]);
    } else if (has_next && equals_ci(o, "pxat")) {
      ok = set_unit(opt, ExpireUnit::pxat, argv[++j]);
    } else {
      ok = false;
    }
    if (!ok) {
      ctx.reply.error(err_syntax);
      return false;
    }
  }
  return true;
}

bool resolve_expire(CommandContext& ctx, SetOptions& opt, std::string_view command) {
  if (opt.unit == ExpireUnit::none) return true;
  std::int64_t ms = 0;
  if (!int_arg(ctx, opt.expire_arg, ms)) return false;
  bool seconds = opt.unit == ExpireUnit::ex || opt.unit == ExpireUnit::exat;
  bool relative = opt.unit == ExpireUnit::ex || opt.unit == ExpireUnit::px;
  bool bad = ms <= 0 || (seconds && ms > LLONG_MAX / 1000);
  if (!bad) {
    if (seconds) ms *= 1000;
    if (relative) {
      bad = ms > LLONG_MAX - ctx.now;  // Redis overflows to a negative time here
      ms += bad ? 0 : ctx.now;
    }
  }
  if (bad) {
    ctx.reply.error("ERR invalid expire time in '" + std::string(command) + "' command");
    return false;
  }
  opt.expire_at = ms;
  return true;
}

}  // namespace duet::kv::detail
