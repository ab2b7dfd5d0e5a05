// libFuzzer target: arbitrary bytes through RespParser and Session.
//
// Properties checked beyond "no crash, no sanitizer report":
// - parsing the input in one piece and in fuzzer-chosen pieces gives the same
//   commands and the same error (the parser's incremental contract);
// - a Session fed the input in pieces never grows its output past the limit by
//   more than one reply, and stops consuming after closing().
// Build and run: tests/kv/run_fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kv/resp_parser.hpp"
#include "kv/server_state.hpp"
#include "kv/session.hpp"

namespace {

using duet::kv::ParseStatus;
using duet::kv::RespParser;

struct Parsed {
  std::vector<std::string> flat;  // args joined with a separator that cannot be confused
  std::string error;
};

// The first input byte picks the piece size; the rest is the stream.
Parsed parse(std::string_view input, std::size_t piece) {
  RespParser parser(1 << 20);
  Parsed out;
  std::string buffer;
  for (std::size_t fed = 0; fed < input.size();) {
    std::size_t n = piece == 0 ? input.size() : std::min(piece, input.size() - fed);
    buffer.append(input.substr(fed, n));
    fed += n;
    while (!buffer.empty()) {
      ParseStatus st = parser.parse(buffer);
      if (st == ParseStatus::incomplete) break;
      if (st == ParseStatus::error) {
        out.error = parser.error();
        return out;
      }
      std::string cmd = std::to_string(parser.args().size());
      for (auto a : parser.args()) cmd.append("|").append(std::to_string(a.size())).append(":").append(a);
      out.flat.push_back(std::move(cmd));
      buffer.erase(0, parser.consumed());
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t piece = 1 + data[0] % 17;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);

  Parsed whole = parse(input, 0);
  Parsed pieces = parse(input, piece);
  if (whole.flat != pieces.flat || whole.error != pieces.error) __builtin_trap();

  duet::kv::ServerConfig config;
  config.proto_max_bulk_len = 1 << 20;  // keeps SETRANGE/APPEND small under the fuzzer's RSS limit
  config.client_output_limit = 1 << 16;
  duet::kv::ServerState state(config);
  state.set_clock([] { return std::int64_t{1'700'000'000'000}; });
  duet::kv::Session session(state);
  for (std::size_t fed = 0; fed < input.size() && !session.closing();) {
    std::size_t n = std::min(piece, input.size() - fed);
    session.feed(input.substr(fed, n));
    fed += n;
    while (!session.wants_input() && !session.closing()) {
      session.consume_output(session.output().size());
      session.process();
    }
    session.consume_output(session.output().size());
    state.store().active_expire_cycle(1'700'000'000'000, 100);
  }
  return 0;
}
