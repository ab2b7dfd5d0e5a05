// duet::kv::RespParser — incremental parser for RESP2 multibulk and inline commands.
//
// Contract
// - parse(input) looks at ONE command at the start of `input` and returns:
//     complete:   args() holds the command (possibly empty: "*0", "*-1" and blank
//                 inline lines are commands with no arguments, to be skipped) and
//                 consumed() tells how many bytes of `input` it used;
//     incomplete: more bytes are needed; consumed() is 0. The parser keeps its
//                 progress, so the NEXT call must pass the same bytes again (they
//                 may have moved in memory) followed by whatever arrived since;
//     error:      a protocol error; error() is the reply line without '-' and
//                 CRLF (e.g. "ERR Protocol error: invalid multibulk length").
//                 Redis replies with it and closes the connection after flushing.
//   After complete or error the parser is ready for the next command.
// - Splitting follows Redis (networking.c): a command starting with '*' is a
//   multibulk, anything else an inline command split like sdssplitargs (quotes,
//   \xHH escapes, LF-only lines). Limits and messages are Redis's: 64 KiB for an
//   inline line or a count line, bulk lengths up to max_bulk_len, and while the
//   client is not authenticated at most 10 arguments of at most 16 KiB.
//   Like Redis (which uses strchr), a NUL byte inside an inline line or a
//   header line hides the line's end: the command stays incomplete until the
//   64 KiB limit makes it an error. Bulk payloads are binary safe.
// - args() views point into `input` (multibulk) or into the parser (inline): they
//   are valid until the next parse() or until the input bytes change.
// - No I/O, no threads: one parser per connection. It allocates only to grow its
//   argument vectors, which are reused across commands.
//
//   RespParser parser;
//   while (parser.parse(buffer) == ParseStatus::complete) {
//     run(parser.args());
//     buffer.remove_prefix(parser.consumed());
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet::kv {

enum class ParseStatus { complete, incomplete, error };

class RespParser {
 public:
  static constexpr std::size_t inline_max_size = 64 * 1024;   // PROTO_INLINE_MAX_SIZE
  static constexpr std::size_t default_max_bulk_len = 512ull * 1024 * 1024;

  explicit RespParser(std::size_t max_bulk_len = default_max_bulk_len) noexcept : max_bulk_len_(max_bulk_len) {}

  [[nodiscard]] ParseStatus parse(std::string_view input);

  [[nodiscard]] std::span<const std::string_view> args() const noexcept { return args_; }
  [[nodiscard]] std::size_t consumed() const noexcept { return consumed_; }
  [[nodiscard]] std::string_view error() const noexcept { return error_; }
  // While incomplete: the input size at which the parser can next make progress
  // (exact inside a bulk, else one more byte). Lets a caller reserve buffer room.
  [[nodiscard]] std::size_t bytes_wanted() const noexcept { return wanted_; }

  void set_max_bulk_len(std::size_t n) noexcept { max_bulk_len_ = n; }
  // Unauthenticated clients get Redis's small limits (10 args, 16 KiB bulks).
  void set_authenticated(bool yes) noexcept { authenticated_ = yes; }
  // Forgets a partially parsed command.
  void reset() noexcept;

 private:
  enum class Kind : std::uint8_t { none, multibulk, inline_line };

  ParseStatus parse_inline(std::string_view input);
  // One pass over a complete multibulk whose header lines are all plain digits;
  // false (nothing changed but args_) for anything else, which parse_multibulk handles.
  bool parse_multibulk_fast(std::string_view input);
  ParseStatus parse_multibulk(std::string_view input);
  ParseStatus parse_count(std::string_view input);
  ParseStatus parse_bulk_header(std::string_view input);
  ParseStatus finish(std::size_t consumed);
  ParseStatus fail(std::string_view message);
  // Finds '\r' (or '\n' for inline) at or after scan_, remembering how far it looked.
  std::size_t find_from_scan(std::string_view input, char c) noexcept;

  std::size_t max_bulk_len_;
  bool authenticated_ = true;
  Kind kind_ = Kind::none;
  std::size_t pos_ = 0;          // parsed so far, from the command start
  std::size_t scan_ = 0;         // searched for a line end up to here
  std::int64_t remaining_ = 0;   // multibulk arguments still to read
  std::int64_t bulk_len_ = -1;   // current bulk's length, -1 before its header
  bool nul_blocked_ = false;     // a NUL byte hides the line end (Redis's strchr)
  std::size_t consumed_ = 0;
  std::size_t wanted_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> offsets_;  // multibulk args (offset, length)
  std::vector<std::string_view> args_;
  std::string inline_storage_;
  std::string error_;
};

}  // namespace duet::kv
