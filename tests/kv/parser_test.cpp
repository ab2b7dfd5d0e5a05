// RespParser: Redis's splitting rules, limits and errors, at every split point.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "kv/resp_parser.hpp"

using duet::kv::ParseStatus;
using duet::kv::RespParser;

namespace {

// What a parser made of a whole input: each command's args (empty commands
// included as {}), then the error message if one stopped it.
struct Outcome {
  std::vector<std::vector<std::string>> commands;
  std::string error;
  std::size_t left_over = 0;  // bytes of an incomplete trailing command
  bool operator==(const Outcome&) const = default;
};

std::vector<std::string> copy_args(const RespParser& p) {
  std::vector<std::string> out;
  for (auto a : p.args()) out.emplace_back(a);
  return out;
}

// Feeds `input` in pieces cut at `cuts` (sorted offsets), as a session would:
// the unconsumed tail is kept and extended.
Outcome parse_in_pieces(std::string_view input, const std::vector<std::size_t>& cuts,
                        std::size_t max_bulk = RespParser::default_max_bulk_len, bool authenticated = true) {
  RespParser parser(max_bulk);
  parser.set_authenticated(authenticated);
  Outcome out;
  std::string buffer;
  std::size_t fed = 0;
  auto drain = [&] {
    while (!buffer.empty()) {
      ParseStatus st = parser.parse(buffer);
      if (st == ParseStatus::incomplete) return true;
      if (st == ParseStatus::error) {
        out.error = std::string(parser.error());
        return false;
      }
      out.commands.push_back(copy_args(parser));
      buffer.erase(0, parser.consumed());
    }
    return true;
  };
  std::vector<std::size_t> ends = cuts;
  ends.push_back(input.size());
  for (std::size_t end : ends) {
    buffer.append(input.substr(fed, end - fed));
    fed = end;
    if (!drain()) return out;
  }
  out.left_over = buffer.size();
  return out;
}

Outcome parse_whole(std::string_view input) { return parse_in_pieces(input, {}); }

// Every split in two pieces, and byte by byte, must give the one-shot outcome.
void check_all_splits(std::string_view input, const Outcome& expected) {
  INFO("input: " << std::string(input));
  REQUIRE(parse_whole(input) == expected);
  for (std::size_t cut = 1; cut < input.size(); ++cut) REQUIRE(parse_in_pieces(input, {cut}) == expected);
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < input.size(); ++i) every.push_back(i);
  REQUIRE(parse_in_pieces(input, every) == expected);
}

using Cmds = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("multibulk commands parse identically whatever the split points", "[kv][parser]") {
  check_all_splits("*1\r\n$4\r\nPING\r\n", {Cmds{{"PING"}}, "", 0});
  check_all_splits("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", {Cmds{{"SET", "k", ""}}, "", 0});
  check_all_splits(std::string("*2\r\n$3\r\nGET\r\n$3\r\na\0\n\r\n", 22), {Cmds{{"GET", std::string("a\0\n", 3)}}, "", 0});
  check_all_splits("*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n", {Cmds{{"PING"}, {"PING"}}, "", 0});
}

TEST_CASE("*0 and *-1 are empty commands, skipped like Redis", "[kv][parser]") {
  check_all_splits("*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", {Cmds{{}, {}, {"PING"}}, "", 0});
}

TEST_CASE("inline commands split like sdssplitargs", "[kv][parser]") {
  check_all_splits("PING\r\n", {Cmds{{"PING"}}, "", 0});
  check_all_splits("set a b\n", {Cmds{{"set", "a", "b"}}, "", 0});
  check_all_splits("  set   'a b'  \"c\\x41\\n\\\"\"\r\n", {Cmds{{"set", "a b", "cA\n\""}}, "", 0});
  check_all_splits("echo 'it\\'s'\n", {Cmds{{"echo", "it's"}}, "", 0});
  check_all_splits("a\"b c\"d\n", {Cmds{}, "ERR Protocol error: unbalanced quotes in request", 0});
  check_all_splits("a\"b c\" d\n", {Cmds{{"ab c", "d"}}, "", 0});
  check_all_splits("echo \"\\xzz\"\n", {Cmds{{"echo", "xzz"}}, "", 0});
  check_all_splits("\n\r\n   \nPING\n", {Cmds{{}, {}, {}, {"PING"}}, "", 0});
  check_all_splits("\"abc\n", {Cmds{}, "ERR Protocol error: unbalanced quotes in request", 0});
  check_all_splits("'abc'x\n", {Cmds{}, "ERR Protocol error: unbalanced quotes in request", 0});
  // Redis finds line ends with strchr: a NUL hides the newline for good.
  check_all_splits(std::string("get a\0b c\nPING\n", 15), {Cmds{}, "", 15});
  check_all_splits(std::string("*1\0\r\n$4\r\nPING\r\n", 15), {Cmds{}, "", 15});
  CHECK(parse_whole(std::string("a\0", 2) + std::string(70000, '\n')).error == "ERR Protocol error: too big inline request");
}

TEST_CASE("Redis's tolerant skipping: bytes after a bulk are not checked", "[kv][parser]") {
  check_all_splits("*1\r\n$4\r\nPINGxxPING\r\n", {Cmds{{"PING"}, {"PING"}}, "", 0});
}

TEST_CASE("protocol errors carry Redis's exact messages", "[kv][parser]") {
  check_all_splits("*x\r\n", {Cmds{}, "ERR Protocol error: invalid multibulk length", 0});
  check_all_splits("*01\r\n", {Cmds{}, "ERR Protocol error: invalid multibulk length", 0});
  check_all_splits("*3000000000\r\n", {Cmds{}, "ERR Protocol error: invalid multibulk length", 0});
  check_all_splits("*2\r\nx\r\n", {Cmds{}, "ERR Protocol error: expected '$', got 'x'", 0});
  check_all_splits("*1\r\n$-1\r\n", {Cmds{}, "ERR Protocol error: invalid bulk length", 0});
  check_all_splits("*1\r\n$+4\r\nPING\r\n", {Cmds{}, "ERR Protocol error: invalid bulk length", 0});
  check_all_splits("PING\r\n*x\r\nPING\r\n", {Cmds{{"PING"}}, "ERR Protocol error: invalid multibulk length", 0});
}

TEST_CASE("size limits: bulk length, inline and count lines", "[kv][parser]") {
  CHECK(parse_in_pieces("*1\r\n$1025\r\n", {}, 1024).error == "ERR Protocol error: invalid bulk length");
  CHECK(parse_in_pieces("*1\r\n$1024\r\n", {}, 1024).left_over == 11);
  std::string long_line(64 * 1024 + 1, 'a');
  CHECK(parse_whole(long_line).error == "ERR Protocol error: too big inline request");
  CHECK(parse_whole(long_line.substr(1)).left_over == 64 * 1024);
  CHECK(parse_whole("*" + long_line).error == "ERR Protocol error: too big mbulk count string");
  CHECK(parse_whole("*1\r\n$" + long_line).error == "ERR Protocol error: too big bulk count string");
}

TEST_CASE("unauthenticated clients get Redis's small limits", "[kv][parser]") {
  CHECK(parse_in_pieces("*11\r\n", {}, 1 << 20, false).error == "ERR Protocol error: unauthenticated multibulk length");
  CHECK(parse_in_pieces("*1\r\n$16385\r\n", {}, 1 << 20, false).error ==
        "ERR Protocol error: unauthenticated bulk length");
  CHECK(parse_in_pieces("*10\r\n$16384\r\n", {}, 1 << 20, false).error.empty());
}

TEST_CASE("an incomplete command reports the bytes it waits for", "[kv][parser]") {
  RespParser parser;
  std::string input = "*2\r\n$3\r\nGET\r\n$100\r\nab";
  REQUIRE(parser.parse(input) == ParseStatus::incomplete);
  CHECK(parser.bytes_wanted() == input.size() - 2 + 102);
}

// --- randomized: random commands, random encodings, random cuts ------------

namespace {

std::string random_arg(std::mt19937_64& rng) {
  std::string a;
  std::size_t len = rng() % 4 == 0 ? rng() % 40 : rng() % 6;
  for (std::size_t i = 0; i < len; ++i) a.push_back(static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 'a' + rng() % 3));
  return a;
}

// Inline encoding of args that Redis can represent: always double-quoted with
// every byte as \xHH (the simple, obviously-correct escape).
std::string encode_inline(const std::vector<std::string>& args, bool crlf) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const std::string& a : args) {
    out += " \"";
    for (char c : a) {
      auto u = static_cast<unsigned char>(c);
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
    out += "\"";
  }
  out += crlf ? "\r\n" : "\n";
  return out;
}

std::string encode_multibulk(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

}  // namespace

TEST_CASE("randomized streams parse to the commands that were encoded, at any cuts", "[kv][parser]") {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 300; ++round) {
    Outcome expected;
    std::string stream;
    int n = 1 + static_cast<int>(rng() % 8);
    for (int c = 0; c < n; ++c) {
      std::vector<std::string> args;
      std::size_t argc = 1 + rng() % 4;
      for (std::size_t i = 0; i < argc; ++i) args.push_back(random_arg(rng));
      bool inline_ok = true;
      for (auto& a : args) inline_ok = inline_ok && a.find('\0') == std::string::npos;
      if (inline_ok && rng() % 3 == 0) {
        stream += encode_inline(args, rng() % 2 == 0);
      } else {
        stream += encode_multibulk(args);
      }
      expected.commands.push_back(args);
    }
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < stream.size(); ++i) {
      if (rng() % 5 == 0) cuts.push_back(i);
    }
    INFO("round " << round);
    REQUIRE(parse_in_pieces(stream, cuts) == expected);
  }
}

TEST_CASE("random bytes: incremental parsing agrees with one-shot parsing", "[kv][parser]") {
  std::mt19937_64 rng(777);
  const std::string alphabet = "*$\r\n0123-x \"'\\";
  for (int round = 0; round < 3000; ++round) {
    std::string input;
    std::size_t len = rng() % 40;
    for (std::size_t i = 0; i < len; ++i) input.push_back(alphabet[rng() % alphabet.size()]);
    Outcome whole = parse_whole(input);
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < input.size(); ++i) {
      if (rng() % 3 == 0) cuts.push_back(i);
    }
    INFO("input: " << input);
    REQUIRE(parse_in_pieces(input, cuts) == whole);
  }
}

TEST_CASE("a whole command parsed in one pass agrees with the incremental parse at its edges", "[kv][parser]") {
  // parse() reads a complete multibulk with plain digit headers in one pass and
  // leaves everything else to the incremental parser: both must agree.
  check_all_splits("*1\r\n$0\r\n\r\n", {Cmds{{""}}, "", 0});
  check_all_splits("*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000042\r\n", {Cmds{{"GET", "key:000000000042"}}, "", 0});
  check_all_splits("*1\r\n$00\r\n\r\n", {Cmds{}, "ERR Protocol error: invalid bulk length", 0});
  check_all_splits("*1\r\n$01\r\nx\r\n", {Cmds{}, "ERR Protocol error: invalid bulk length", 0});
  check_all_splits("*1\r\n$1\rxx\r\n", {Cmds{{"x"}}, "", 0});  // the byte after '\r' is not checked
  check_all_splits("*1\r\n$1 \r\nx\r\n", {Cmds{}, "ERR Protocol error: invalid bulk length", 0});
  check_all_splits(std::string("*1\r\n$1\0\r\nx\r\n", 12), {Cmds{}, "", 12});  // a NUL hides the line end
  CHECK(parse_in_pieces("*1\r\n$123456789\r\n", {}).left_over == 16);
  CHECK(parse_in_pieces("*1\r\n$1234567890\r\n", {}, 2'000'000'000).left_over == 17);
  CHECK(parse_in_pieces("*1\r\n$123456789\r\n", {}, 123456788).error == "ERR Protocol error: invalid bulk length");
  CHECK(parse_in_pieces("*12\r\n", {}, 1 << 20, false).error == "ERR Protocol error: unauthenticated multibulk length");
  for (int n : {12, 64, 65, 100}) {  // past 64 arguments the incremental path reads it
    std::string many = "*" + std::to_string(n) + "\r\n";
    for (int i = 0; i < n; ++i) many += "$2\r\nab\r\n";
    CHECK(parse_whole(many).commands == Cmds{std::vector<std::string>(static_cast<std::size_t>(n), "ab")});
  }
}
