// The bit algorithms (kv/types/bitmap.hpp) against a plain model (a
// std::vector<bool> of the string's bits, 128-bit arithmetic for BITFIELD's
// overflow) under seeded random operations; then the bitmap commands, LCS,
// TIME and EXPIRETIME through Session with exact reply bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kv/types/bitmap.hpp"
#include "kv/types/list.hpp"
#include "kv_test_util.hpp"

using namespace duet::kv::bitmap;
using kvtest::SessionFixture;

namespace {

__extension__ typedef __int128 i128;

std::vector<bool> bits_of(const std::string& s) {
  std::vector<bool> bits;
  for (unsigned char c : s) {
    for (int b = 7; b >= 0; --b) bits.push_back(((c >> b) & 1) != 0);
  }
  return bits;
}

// A string with long runs of 0x00 and 0xFF (BITPOS's word skipping) and random bytes.
std::string random_bytes(std::mt19937_64& rng, std::size_t max_size) {
  std::string s(rng() % (max_size + 1), '\0');
  for (std::size_t i = 0; i < s.size();) {
    std::size_t run = 1 + rng() % 20;
    int kind = static_cast<int>(rng() % 3);
    for (; run > 0 && i < s.size(); --run, ++i) s[i] = static_cast<char>(kind == 0 ? 0 : kind == 1 ? 0xFF : rng());
  }
  return s;
}

std::int64_t model_count(const std::vector<bool>& bits, BitRange r) {
  return std::count(bits.begin() + static_cast<std::ptrdiff_t>(r.first), bits.begin() + static_cast<std::ptrdiff_t>(r.last) + 1, true);
}

std::int64_t model_find(const std::vector<bool>& bits, bool bit, BitRange r) {
  for (std::uint64_t i = r.first; i <= r.last; ++i) {
    if (bits[i] == bit) return static_cast<std::int64_t>(i);
  }
  return -1;
}

// Redis's range rules, spelled out on the bit vector.
bool model_range(std::size_t size, std::int64_t start, std::int64_t end, Unit unit, BitRange& r) {
  std::int64_t total = static_cast<std::int64_t>(size) * (unit == Unit::bit ? 8 : 1);
  start = start < 0 ? std::max<std::int64_t>(0, total + start) : start;
  end = end < 0 ? std::max<std::int64_t>(0, total + end) : end;
  end = std::min(end, total - 1);
  if (start > end) return false;
  std::int64_t scale = unit == Unit::bit ? 1 : 8;
  r = {static_cast<std::uint64_t>(start * scale), static_cast<std::uint64_t>(end * scale + scale - 1)};
  return true;
}

std::int64_t model_read(const std::vector<bool>& bits, std::uint64_t offset, FieldType t) {
  std::uint64_t v = 0;
  for (unsigned j = 0; j < t.bits; ++j) v = (v << 1) | ((offset + j < bits.size() && bits[offset + j]) ? 1 : 0);
  if (t.is_signed && t.bits < 64 && ((v >> (t.bits - 1)) & 1)) v |= ~std::uint64_t{0} << t.bits;
  return static_cast<std::int64_t>(v);
}

// value + incr as a field: the exact sum decides; WRAP keeps the low bits, SAT the limit.
bool model_add(i128 value, std::int64_t incr, FieldType t, Overflow mode, std::int64_t& out) {
  i128 max = t.is_signed ? (i128{1} << (t.bits - 1)) - 1 : (i128{1} << t.bits) - 1;
  i128 min = t.is_signed ? -max - 1 : 0;
  i128 sum = value + incr;
  if (sum >= min && sum <= max) {
    out = static_cast<std::int64_t>(sum);
    return true;
  }
  // Redis's quirk, kept: a signed SET far below the range (max - value wraps
  // past INT64_MAX in checkSignedBitfieldOverflow) counts as an overflow up.
  bool up = sum > max || (t.is_signed && t.bits < 64 && incr == 0 && value < max - INT64_MAX);
  if (mode == Overflow::sat) out = static_cast<std::int64_t>(up ? max : min);
  if (mode == Overflow::wrap) {
    auto low = static_cast<std::uint64_t>(sum) & (t.bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << t.bits) - 1);
    if (t.is_signed && t.bits < 64 && ((low >> (t.bits - 1)) & 1)) low |= ~std::uint64_t{0} << t.bits;
    out = static_cast<std::int64_t>(low);
  }
  return false;
}

FieldType random_type(std::mt19937_64& rng) {
  FieldType t;
  t.is_signed = rng() % 2 == 0;
  // Mostly the edges (1, 63, 64 bits), where overflow checks are subtle.
  const unsigned edge[] = {1, 2, 7, 8, 9, 31, 32, 33, 62, 63, 64};
  t.bits = rng() % 2 == 0 ? edge[rng() % 11] : 1 + static_cast<unsigned>(rng() % 64);
  if (!t.is_signed && t.bits == 64) t.bits = 63;
  return t;
}

std::int64_t random_value(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return static_cast<std::int64_t>(rng() % 7) - 3;
    case 1: return static_cast<std::int64_t>(rng());
    case 2: return rng() % 2 == 0 ? INT64_MAX - static_cast<std::int64_t>(rng() % 3) : INT64_MIN + static_cast<std::int64_t>(rng() % 3);
    default: return static_cast<std::int64_t>(rng() % 100000) - 50000;
  }
}

// A key of another type, for WRONGTYPE: a real list (an object is only ever
// one of the type modules', which the dispatch in kv/types knows).
void put_other(SessionFixture& f, std::string_view key) {
  bool created = false;
  auto list = duet::kv::make_object<duet::kv::ListObject>();
  list->push(duet::kv::ListEnd::tail, "x", -2);
  f.state.store().db(0).upsert(key, f.now, created).value.set_object(std::move(list));
}

}  // namespace

TEST_CASE("bit counts and bit positions match a bit-vector model over random ranges", "[bitmap]") {
  std::mt19937_64 rng(25);
  for (int round = 0; round < 3000; ++round) {
    std::string s = random_bytes(rng, 80);
    std::vector<bool> bits = bits_of(s);
    Unit unit = rng() % 2 == 0 ? Unit::byte : Unit::bit;
    std::int64_t span = static_cast<std::int64_t>(s.size()) * (unit == Unit::bit ? 8 : 1) + 5;
    std::int64_t start = static_cast<std::int64_t>(rng() % (2 * span + 1)) - span;
    std::int64_t end = static_cast<std::int64_t>(rng() % (2 * span + 1)) - span;
    if (rng() % 10 == 0) start = INT64_MIN + static_cast<std::int64_t>(rng() % 2);
    if (rng() % 10 == 0) end = INT64_MAX;
    BitRange want{};
    BitRange got{};
    bool has = model_range(s.size(), start, end, unit, want);
    REQUIRE(resolve_range(s.size(), start, end, unit, got) == has);
    if (!has) continue;
    REQUIRE(got.first == want.first);
    REQUIRE(got.last == want.last);
    REQUIRE(static_cast<std::int64_t>(count_bits(s, got)) == model_count(bits, want));
    REQUIRE(find_bit(s, true, got) == model_find(bits, true, want));
    REQUIRE(find_bit(s, false, got) == model_find(bits, false, want));
  }
}

TEST_CASE("single bits set and read back as the model's, and set_bit answers the old bit", "[bitmap]") {
  std::mt19937_64 rng(7);
  std::string s(64, '\0');
  std::vector<bool> bits(512, false);
  for (int i = 0; i < 5000; ++i) {
    std::uint64_t offset = rng() % 512;
    bool on = rng() % 2 == 0;
    REQUIRE(set_bit(s.data(), offset, on) == bits[offset]);
    bits[offset] = on;
    std::uint64_t probe = rng() % 600;
    REQUIRE(get_bit(s, probe) == (probe < 512 && bits[probe]));
  }
  REQUIRE(bits_of(s) == bits);
}

TEST_CASE("bitfield reads and writes at any offset and width match the model", "[bitmap]") {
  std::mt19937_64 rng(11);
  std::string s = random_bytes(rng, 24);
  s.resize(24, '\x5a');
  for (int i = 0; i < 5000; ++i) {
    FieldType t = random_type(rng);
    std::uint64_t offset = rng() % (24 * 8 - t.bits + 1);
    std::vector<bool> bits = bits_of(s);
    REQUIRE(read_field(s, offset, t) == model_read(bits, offset, t));
    std::string prefix = s.substr(0, rng() % 25);  // bits past the end read as zeros
    REQUIRE(read_field(prefix, offset, t) == model_read(bits_of(prefix), offset, t));
    std::int64_t v = random_value(rng);
    write_field(s.data(), offset, t, v);
    std::uint64_t low = static_cast<std::uint64_t>(v);
    for (unsigned j = 0; j < t.bits; ++j) bits[offset + j] = ((low >> (t.bits - 1 - j)) & 1) != 0;
    REQUIRE(bits_of(s) == bits);  // only the field's bits changed
  }
}

TEST_CASE("bitfield overflow checks wrap, saturate or fail exactly at the type's limits", "[bitmap]") {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 20000; ++i) {
    FieldType t = random_type(rng);
    Overflow mode = static_cast<Overflow>(rng() % 3);
    bool is_set = rng() % 2 == 0;
    std::int64_t incr = random_value(rng);
    std::string field(9, '\0');
    write_field(field.data(), 0, t, random_value(rng));
    std::int64_t old = read_field(field, 0, t);  // a value the field can hold
    // SET checks the new value alone (incr 0); an unsigned one as its bit pattern.
    i128 base = is_set ? (t.is_signed ? i128{incr} : i128{static_cast<std::uint64_t>(incr)}) : i128{old};
    if (!t.is_signed && !is_set) base = i128{static_cast<std::uint64_t>(old)};
    std::int64_t want = 0;
    std::int64_t got = 0;
    bool fits = model_add(base, is_set ? 0 : incr, t, mode, want);
    REQUIRE(add_with_overflow(is_set ? incr : old, is_set ? 0 : incr, t, mode, got) == fits);
    if (fits || mode != Overflow::fail) REQUIRE(got == want);
  }
}

TEST_CASE("BITOP of random strings of different lengths matches a byte-wise model", "[bitmap]") {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 2000; ++round) {
    auto op = static_cast<BitOp>(rng() % 4);
    std::size_t n = op == BitOp::bit_not ? 1 : 1 + rng() % 5;
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < n; ++i) strings.push_back(random_bytes(rng, 100));
    std::vector<std::string_view> views(strings.begin(), strings.end());
    std::size_t size = 0;
    for (const auto& s : strings) size = std::max(size, s.size());
    std::string want(size, '\0');
    for (std::size_t j = 0; j < size; ++j) {
      auto at = [&](std::size_t i) { return j < strings[i].size() ? static_cast<unsigned char>(strings[i][j]) : 0u; };
      unsigned out = op == BitOp::bit_not ? ~at(0) : at(0);
      for (std::size_t i = 1; i < n; ++i) {
        out = op == BitOp::bit_and ? (out & at(i)) : op == BitOp::bit_or ? (out | at(i)) : (out ^ at(i));
      }
      want[j] = static_cast<char>(out);
    }
    REQUIRE(bit_op(op, views) == want);
  }
}

TEST_CASE("SETBIT grows a raw string that GETRANGE, GETBIT and BITCOUNT read back", "[bitmap]") {
  SessionFixture f;
  REQUIRE(f.cmd({"SETBIT", "b", "7", "1"}) == ":0\r\n");
  REQUIRE(f.cmd({"SETBIT", "b", "7", "1"}) == ":1\r\n");
  REQUIRE(f.cmd({"SETBIT", "b", "23", "1"}) == ":0\r\n");
  REQUIRE(f.cmd({"GETRANGE", "b", "0", "-1"}) == std::string("$3\r\n\x01\x00\x01\r\n", 9));
  REQUIRE(f.cmd({"OBJECT", "ENCODING", "b"}) == "$3\r\nraw\r\n");
  REQUIRE(f.cmd({"GETBIT", "b", "23"}) == ":1\r\n");
  REQUIRE(f.cmd({"GETBIT", "b", "9999"}) == ":0\r\n");
  REQUIRE(f.cmd({"BITCOUNT", "b"}) == ":2\r\n");
  REQUIRE(f.cmd({"BITCOUNT", "b", "8", "22", "BIT"}) == ":0\r\n");
  REQUIRE(f.cmd({"SET", "n", "12"}) == "+OK\r\n");  // an integer reads as its digits "12"
  REQUIRE(f.cmd({"GETBIT", "n", "2"}) == ":1\r\n");
  REQUIRE(f.cmd({"SETBIT", "n", "15", "1"}) == ":0\r\n");
  REQUIRE(f.cmd({"GET", "n"}) == "$2\r\n13\r\n");
}

TEST_CASE("a hostile bit offset is refused before anything is allocated", "[bitmap]") {
  SessionFixture f;
  const std::string err = "-ERR bit offset is not an integer or out of range\r\n";
  REQUIRE(f.cmd({"SETBIT", "b", "4294967296", "1"}) == err);  // 512 MB = 2^32 bits
  REQUIRE(f.cmd({"SETBIT", "b", "-1", "1"}) == err);
  REQUIRE(f.cmd({"GETBIT", "b", "9223372036854775807"}) == err);
  REQUIRE(f.cmd({"BITFIELD", "b", "SET", "i64", "#9223372036854775807", "1"}) == err);
  REQUIRE(f.cmd({"BITFIELD", "b", "SET", "u8", "#536870912", "1"}) == err);
  REQUIRE(f.cmd({"SETBIT", "b", "0", "2"}) == "-ERR bit is not an integer or out of range\r\n");
  REQUIRE(f.cmd({"EXISTS", "b"}) == ":0\r\n");
}

TEST_CASE("BITPOS without an end finds the zero just past an all-ones string; with one it does not", "[bitmap]") {
  SessionFixture f;
  REQUIRE(f.cmd({"SET", "k", "\xff\xff"}) == "+OK\r\n");
  REQUIRE(f.cmd({"BITPOS", "k", "0"}) == ":16\r\n");
  REQUIRE(f.cmd({"BITPOS", "k", "0", "1"}) == ":16\r\n");
  REQUIRE(f.cmd({"BITPOS", "k", "0", "0", "-1"}) == ":-1\r\n");
  REQUIRE(f.cmd({"BITPOS", "k", "1", "3", "-1", "BIT"}) == ":3\r\n");
  REQUIRE(f.cmd({"BITPOS", "nokey", "0"}) == ":0\r\n");
  REQUIRE(f.cmd({"BITPOS", "nokey", "1"}) == ":-1\r\n");
  REQUIRE(f.cmd({"BITPOS", "k", "2"}) == "-ERR The bit argument must be 1 or 0.\r\n");
  REQUIRE(f.cmd({"BITPOS", "k", "1", "0", "1", "BOTH"}) == "-ERR syntax error\r\n");
}

TEST_CASE("BITOP stores a raw string without TTL, and deletes the destination when every source is empty", "[bitmap]") {
  SessionFixture f;
  f.cmd({"SET", "a", "abc"});
  f.cmd({"SET", "d", "x", "EX", "100"});
  REQUIRE(f.cmd({"BITOP", "NOT", "d", "a"}) == ":3\r\n");
  REQUIRE(f.cmd({"GET", "d"}) == "$3\r\n\x9e\x9d\x9c\r\n");
  REQUIRE(f.cmd({"TTL", "d"}) == ":-1\r\n");
  REQUIRE(f.cmd({"OBJECT", "ENCODING", "d"}) == "$3\r\nraw\r\n");
  REQUIRE(f.cmd({"BITOP", "AND", "d", "nokey", "other"}) == ":0\r\n");
  REQUIRE(f.cmd({"EXISTS", "d"}) == ":0\r\n");
  REQUIRE(f.cmd({"BITOP", "NOT", "d", "a", "a"}) == "-ERR BITOP NOT must be called with a single source key.\r\n");
  put_other(f, "l");
  REQUIRE(f.cmd({"BITOP", "OR", "d", "a", "l"}).starts_with("-WRONGTYPE"));
  REQUIRE(f.cmd({"BITOP", "OR", "l", "a"}) == ":3\r\n");  // the destination's old type does not matter
  REQUIRE(f.cmd({"TYPE", "l"}) == "+string\r\n");
}

TEST_CASE("BITFIELD replies nil for a FAIL overflow and still grows the string", "[bitmap]") {
  SessionFixture f;
  REQUIRE(f.cmd({"BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "100", "5", "GET", "u2", "100"}) ==
          "*2\r\n$-1\r\n:0\r\n");
  REQUIRE(f.cmd({"STRLEN", "k"}) == ":13\r\n");
  REQUIRE(f.cmd({"BITFIELD", "k", "SET", "i8", "#1", "-1", "OVERFLOW", "SAT", "INCRBY", "i8", "#1", "-200",
                 "OVERFLOW", "WRAP", "INCRBY", "u2", "0", "5"}) == "*3\r\n:0\r\n:-128\r\n:1\r\n");
  REQUIRE(f.cmd({"BITFIELD_RO", "k", "GET", "i8", "8"}) == "*1\r\n:-128\r\n");
  REQUIRE(f.cmd({"BITFIELD_RO", "k", "SET", "i8", "8", "1"}) == "-ERR BITFIELD_RO only supports the GET subcommand\r\n");
  REQUIRE(f.cmd({"BITFIELD", "k", "GET", "u64", "0"}).starts_with("-ERR Invalid bitfield type."));
  REQUIRE(f.cmd({"BITFIELD", "k", "OVERFLOW", "NOPE"}) == "-ERR Invalid OVERFLOW type specified\r\n");
  REQUIRE(f.cmd({"BITFIELD", "k"}) == "*0\r\n");
}

TEST_CASE("LCS answers the string, its length, or its matches as Redis orders them", "[bitmap]") {
  SessionFixture f;
  f.cmd({"MSET", "a", "ohmytext", "b", "mynewtext"});
  REQUIRE(f.cmd({"LCS", "a", "b"}) == "$6\r\nmytext\r\n");
  REQUIRE(f.cmd({"LCS", "a", "b", "LEN"}) == ":6\r\n");
  REQUIRE(f.cmd({"LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"}) ==
          "*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n");
  REQUIRE(f.cmd({"LCS", "a", "b", "IDX"}) ==
          "*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n"
          "$3\r\nlen\r\n:6\r\n");
  REQUIRE(f.cmd({"LCS", "a", "b", "LEN", "IDX"}) == "-ERR If you want both the length and indexes, please just use IDX.\r\n");
  REQUIRE(f.cmd({"LCS", "a", "nokey"}) == "$0\r\n\r\n");
  f.cmd({"CONFIG", "SET", "proto-max-bulk-len", "1mb"});
  f.cmd({"SET", "big", std::string(600, 'x')});
  REQUIRE(f.cmd({"LCS", "big", "big"}) ==
          "-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n");
}

TEST_CASE("EXPIRETIME and PEXPIRETIME answer the expiry's unix time; TIME the server's clock", "[bitmap]") {
  SessionFixture f;
  f.now = 1'700'000'000'123;
  f.cmd({"SET", "k", "v", "PX", "1400"});
  REQUIRE(f.cmd({"PEXPIRETIME", "k"}) == ":1700000001523\r\n");
  REQUIRE(f.cmd({"EXPIRETIME", "k"}) == ":1700000002\r\n");  // rounded, as Redis
  f.cmd({"SET", "p", "v"});
  REQUIRE(f.cmd({"EXPIRETIME", "p"}) == ":-1\r\n");
  REQUIRE(f.cmd({"PEXPIRETIME", "nokey"}) == ":-2\r\n");
  REQUIRE(f.cmd({"TIME"}) == "*2\r\n$10\r\n1700000000\r\n$6\r\n123000\r\n");
}

TEST_CASE("every bitmap command answers WRONGTYPE on another type, after its argument errors", "[bitmap]") {
  SessionFixture f;
  put_other(f, "o");
  const std::string wrongtype = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
  REQUIRE(f.cmd({"SETBIT", "o", "0", "1"}) == wrongtype);
  REQUIRE(f.cmd({"SETBIT", "o", "-1", "1"}) == "-ERR bit offset is not an integer or out of range\r\n");
  REQUIRE(f.cmd({"GETBIT", "o", "0"}) == wrongtype);
  REQUIRE(f.cmd({"BITCOUNT", "o", "0", "1"}) == wrongtype);
  REQUIRE(f.cmd({"BITPOS", "o", "1"}) == wrongtype);
  REQUIRE(f.cmd({"BITPOS", "o", "3"}) == "-ERR The bit argument must be 1 or 0.\r\n");
  REQUIRE(f.cmd({"BITFIELD", "o", "GET", "u8", "0"}) == wrongtype);
  REQUIRE(f.cmd({"BITFIELD", "o", "SET", "u8", "0", "1"}) == wrongtype);
  REQUIRE(f.cmd({"BITFIELD", "o", "GET", "u64", "0"}).starts_with("-ERR Invalid bitfield type"));
  REQUIRE(f.cmd({"BITFIELD_RO", "o", "GET", "u8", "0"}) == wrongtype);
  REQUIRE(f.cmd({"LCS", "o", "nokey"}) == "-ERR The specified keys must contain string values\r\n");
  REQUIRE(f.cmd({"LCS", "nokey", "o", "NOPE"}) == "-ERR The specified keys must contain string values\r\n");
  REQUIRE(f.cmd({"EXPIRETIME", "o"}) == ":-1\r\n");
}
