// A reference for the buffered reader (io/detail/buffered_core.hpp): the same
// reads computed on the whole byte stream at once, for fuzz tests that feed the
// reader the stream in random pieces and compare. Shared by the core's test
// (no sockets) and both voices' socket-level tests.
//
//   std::mt19937 rng(seed);
//   auto script = duet::test::random_script(rng);
//   auto expected = duet::test::reference_outcomes(script);
#pragma once

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace duet::test {

struct ReadOp {
  enum class Kind { line, until_char, until_string, exactly, peek } kind;
  std::size_t n;  // max_length (line, until) or size (exactly, peek)
};

// What a read answered: bytes, too long (message_size), or EOF with what stayed buffered.
struct Outcome {
  enum class Status { value, too_long, eof } status;
  std::string bytes;
  bool operator==(const Outcome&) const = default;
};

inline constexpr std::string_view fuzz_delim = "\r\n";

struct Script {
  std::string stream;
  std::vector<ReadOp> ops;
};

// Short lines of a small alphabet heavy in '\r' and '\n' (so "\r\n" splits
// often), now and then a long run with no newline at all.
inline Script random_script(std::mt19937& rng, std::size_t ops = 40) {
  Script s;
  const std::size_t lines = 10 + rng() % 40;
  for (std::size_t i = 0; i < lines; ++i) {
    const std::size_t length = rng() % 8 == 0 ? 20 + rng() % 60 : rng() % 12;
    for (std::size_t j = 0; j < length; ++j) s.stream += "ab\rcd"[rng() % 5];
    s.stream += rng() % 3 == 0 ? "\r\n" : "\n";
  }
  if (rng() % 2 == 0) s.stream += "tail";  // EOF before a delimiter
  for (std::size_t i = 0; i < ops; ++i) {
    const auto kind = static_cast<ReadOp::Kind>(rng() % 5);
    s.ops.push_back({kind, kind == ReadOp::Kind::exactly || kind == ReadOp::Kind::peek ? rng() % 10 : 4 + rng() % 24});
  }
  return s;
}

// One read on the whole stream from pos; a value consumes (unless a peek), too
// long consumes nothing.
inline Outcome reference_read(std::string_view stream, std::size_t& pos, const ReadOp& op) {
  const std::string_view rest = stream.substr(pos);
  const auto value = [&](std::size_t length, std::size_t consumed) {
    pos += consumed;
    return Outcome{Outcome::Status::value, std::string(rest.substr(0, length))};
  };
  const auto eof = [&] { return Outcome{Outcome::Status::eof, std::string(rest)}; };
  switch (op.kind) {
    case ReadOp::Kind::exactly: return rest.size() >= op.n ? value(op.n, op.n) : eof();
    case ReadOp::Kind::peek: return rest.size() >= op.n ? value(op.n, 0) : eof();
    case ReadOp::Kind::line:
    case ReadOp::Kind::until_char:
    case ReadOp::Kind::until_string: break;
  }
  const std::string_view delim = op.kind == ReadOp::Kind::until_string ? fuzz_delim : "\n";
  const std::size_t window = op.kind == ReadOp::Kind::line ? op.n + 2 : op.n;
  const std::size_t at = rest.substr(0, window).find(delim);
  if (at == std::string_view::npos) {
    return rest.size() >= window ? Outcome{Outcome::Status::too_long, {}} : eof();
  }
  if (op.kind != ReadOp::Kind::line) return value(at + delim.size(), at + delim.size());
  const std::size_t length = at > 0 && rest[at - 1] == '\r' ? at - 1 : at;
  if (length > op.n) return {Outcome::Status::too_long, {}};
  return value(length, at + 1);
}

// Every read's outcome until the first EOF; after too long, the reader drops one byte.
inline std::vector<Outcome> reference_outcomes(const Script& script) {
  std::vector<Outcome> out;
  std::size_t pos = 0;
  for (const ReadOp& op : script.ops) {
    out.push_back(reference_read(script.stream, pos, op));
    if (out.back().status == Outcome::Status::eof) break;
    if (out.back().status == Outcome::Status::too_long) ++pos;
  }
  return out;
}

// Random split points: the sizes the stream is delivered in, 1..max_piece bytes each.
inline std::vector<std::size_t> random_pieces(std::mt19937& rng, std::size_t total, std::size_t max_piece) {
  std::vector<std::size_t> pieces;
  for (std::size_t done = 0; done < total;) {
    const std::size_t piece = std::min<std::size_t>(1 + rng() % max_piece, total - done);
    pieces.push_back(piece);
    done += piece;
  }
  return pieces;
}

// Records one read's answer from a reader of either voice (r: its
// IoResult<string_view>); false once the script must stop (EOF or an error).
// After message_size it drops one byte, as reference_outcomes does.
template <typename Result, typename Reader>
bool record(std::vector<Outcome>& out, Result r, Reader& reader) {
  if (r) {
    out.push_back({Outcome::Status::value, std::string(*r)});
  } else if (r.error() == std::errc::message_size) {
    out.push_back({Outcome::Status::too_long, {}});
    reader.consume(1);
  } else {
    out.push_back({Outcome::Status::eof, r.eof() ? std::string(reader.buffered()) : "error: " + r.error().message()});
    return false;
  }
  return true;
}

}  // namespace duet::test
