// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN] (Redis 7.0's
// t_string.c lcsCommand): the longest common subsequence of two strings by the
// classic dynamic-programming table, walked back from its corner to recover
// the string or its matching ranges. The table is (len1+1)*(len2+1) 32-bit
// cells, refused past proto-max-bulk-len bytes as Redis refuses it, so a
// hostile pair of strings costs at most that much transient memory. Its
// table entry is in commands_bitmap.cpp (the string family's last part).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  std::int64_t min_match_len = 0;
};

struct Match {
  std::uint32_t a_start, a_end, b_start, b_end;
};

bool parse_lcs_options(CommandContext& ctx, LcsOptions& opt) {
  for (std::size_t j = 3; j < ctx.argv.size(); ++j) {
    std::string_view o = ctx.argv[j];
    bool more = j + 1 < ctx.argv.size();
    if (equals_ci(o, "idx")) {
      opt.idx = true;
    } else if (equals_ci(o, "len")) {
      opt.len = true;
    } else if (equals_ci(o, "withmatchlen")) {
      opt.with_match_len = true;
    } else if (equals_ci(o, "minmatchlen") && more) {
      if (!detail::int_arg(ctx, ctx.argv[++j], opt.min_match_len)) return false;
      if (opt.min_match_len < 0) opt.min_match_len = 0;
    } else {
      ctx.reply.error(detail::err_syntax);
      return false;
    }
  }
  if (opt.len && opt.idx) {
    ctx.reply.error("ERR If you want both the length and indexes, please just use IDX.");
    return false;
  }
  return true;
}

// The table of LCS lengths of every pair of prefixes: cell (i, j) at i*(b+1)+j.
class LcsTable {
 public:
  LcsTable(std::string_view a, std::string_view b, std::uint32_t* cells) : a_(a), b_(b), cells_(cells) {
    for (std::size_t i = 0; i <= a.size(); ++i) {
      for (std::size_t j = 0; j <= b.size(); ++j) {
        if (i == 0 || j == 0) {
          at(i, j) = 0;
        } else if (a[i - 1] == b[j - 1]) {
          at(i, j) = at(i - 1, j - 1) + 1;
        } else {
          at(i, j) = std::max(at(i - 1, j), at(i, j - 1));
        }
      }
    }
  }
  [[nodiscard]] std::uint32_t& at(std::size_t i, std::size_t j) { return cells_[i * (b_.size() + 1) + j]; }
  [[nodiscard]] std::uint32_t length() { return at(a_.size(), b_.size()); }

  // Walks back from the corner as Redis does: fills `text` (sized length())
  // and appends each maximal run of matches of at least `min_len` to `matches`.
  void walk(std::string& text, std::vector<Match>& matches, std::uint64_t min_len);

 private:
  std::string_view a_, b_;
  std::uint32_t* cells_;
};

void LcsTable::walk(std::string& text, std::vector<Match>& matches, std::uint64_t min_len) {
  const auto alen = static_cast<std::uint32_t>(a_.size());
  std::uint32_t i = alen, j = static_cast<std::uint32_t>(b_.size()), idx = length();
  Match run{alen, 0, 0, 0};  // a_start == alen: no run open
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a_[i - 1] == b_[j - 1]) {
      text[--idx] = a_[i - 1];
      if (run.a_start == alen) {
        run = {i - 1, i - 1, j - 1, j - 1};
      } else if (run.a_start == i && run.b_start == j) {
        --run.a_start;  // the run extends backwards
        --run.b_start;
      } else {
        emit = true;
      }
      emit = emit || run.a_start == 0 || run.b_start == 0;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) --i; else --j;
      emit = run.a_start != alen;
    }
    if (!emit) continue;
    if (run.a_end - run.a_start + 1 >= min_len) matches.push_back(run);
    run.a_start = alen;
  }
}

void reply_matches(CommandContext& ctx, const std::vector<Match>& matches, bool with_len, std::uint32_t total) {
  ctx.reply.map(2);
  ctx.reply.bulk("matches");
  ctx.reply.array(matches.size());
  for (const Match& m : matches) {
    ctx.reply.array(with_len ? 3 : 2);
    ctx.reply.array(2);
    ctx.reply.integer(m.a_start);
    ctx.reply.integer(m.a_end);
    ctx.reply.array(2);
    ctx.reply.integer(m.b_start);
    ctx.reply.integer(m.b_end);
    if (with_len) ctx.reply.integer(m.a_end - m.a_start + 1);
  }
  ctx.reply.bulk("len");
  ctx.reply.integer(total);
}

// The two strings, or false after the error reply.
bool lcs_inputs(CommandContext& ctx, Value::Scratch (&scratch)[2], std::string_view (&s)[2]) {
  // lookupKeyRead of both keys (stats, "keymiss") before either is checked, as Redis does.
  Entry* found[2] = {detail::read_key(ctx, ctx.argv[1]), detail::read_key(ctx, ctx.argv[2])};
  for (int k = 0; k < 2; ++k) {
    Entry* e = found[k];
    if (e != nullptr && !e->value.is_string()) {
      ctx.reply.error("ERR The specified keys must contain string values");
      return false;
    }
    s[k] = e != nullptr ? e->value.str(scratch[k]) : std::string_view{};
  }
  return true;
}

}  // namespace

namespace detail {

void lcs_command(CommandContext& ctx) {
  Value::Scratch scratch[2];
  std::string_view s[2];
  LcsOptions opt;
  if (!lcs_inputs(ctx, scratch, s) || !parse_lcs_options(ctx, opt)) return;
  if (s[0].size() >= UINT32_MAX - 1 || s[1].size() >= UINT32_MAX - 1) return ctx.reply.error("ERR String too long for LCS");
  const std::uint64_t cells = (s[0].size() + 1) * (s[1].size() + 1);  // < 2^64 by the check above
  if (cells > UINT64_MAX / sizeof(std::uint32_t)) {
    return ctx.reply.error("ERR Insufficient memory, failed allocating transient memory for LCS");
  }
  if (cells * sizeof(std::uint32_t) > ctx.server.config().proto_max_bulk_len) {
    return ctx.reply.error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  std::unique_ptr<std::uint32_t[]> memory(new (std::nothrow) std::uint32_t[cells]);
  if (!memory) return ctx.reply.error("ERR Insufficient memory, failed allocating transient memory for LCS");
  LcsTable table(s[0], s[1], memory.get());
  if (opt.len) return ctx.reply.integer(table.length());
  std::string text(table.length(), '\0');
  std::vector<Match> matches;
  table.walk(text, matches, static_cast<std::uint64_t>(opt.min_match_len));
  if (opt.idx) return reply_matches(ctx, matches, opt.with_match_len, table.length());
  ctx.reply.bulk(text);
}

}  // namespace detail

}  // namespace duet::kv
