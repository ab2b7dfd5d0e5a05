// The HyperLogLog module: MurmurHash64A's vectors (cross-checked against the
// registers redis-server 7.0 picks), sparse and dense strings agreeing
// register for register, the promotions, merge, Redis's counts for known
// inputs, corrupted strings rejected without a read or write outside them,
// and random bytes behind a valid header through PFADD/PFCOUNT/PFMERGE (the
// sanitizer builds run this too).
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "kv/types/hll_sparse.hpp"
#include "kv/types/hyperloglog.hpp"
#include "kv_test_util.hpp"

namespace hll = duet::kv::hll;
using duet::kv::Value;
using kvtest::SessionFixture;

namespace {

std::string bytes_of(const Value& v) {
  Value::Scratch s;
  return std::string(v.str(s));
}

hll::Registers registers_of(const Value& v) {
  hll::Registers r{};
  REQUIRE(hll::merge(r, bytes_of(v)));
  return r;
}

Value empty_hll() {
  Value v;
  hll::create(v);
  return v;
}

std::string header(std::uint8_t encoding) {
  std::string h = "HYLL";
  h += static_cast<char>(encoding);
  h.append(10, '\0');
  h += '\x80';
  return h;
}

// Exactly one well-formed reply: "-..." or ":n" lines (or +OK) for these commands.
bool one_reply(const std::string& reply) {
  if (reply.size() < 3 || reply.find("\r\n") != reply.size() - 2) return false;
  return reply[0] == '-' || reply[0] == ':' || reply == "+OK\r\n";
}

}  // namespace

TEST_CASE("MurmurHash64A gives the known vectors and the registers Redis picks", "[hll]") {
  CHECK(hll::murmur_hash64a("", 0) == 0);
  CHECK(hll::murmur_hash64a("a", 0) == 0x071717d2d36b6b11ull);
  CHECK(hll::murmur_hash64a("hello", 0) == 0x1e68d17c457bf117ull);
  CHECK(hll::murmur_hash64a("abcdefgh", 0) == 0xafdb0257ff41aa98ull);
  CHECK(hll::murmur_hash64a("abcdefghi", 0) == 0xc9b9d84356146ac2ull);
  CHECK(hll::murmur_hash64a("", hll::hash_seed) == 0xd8dfea6585bc9732ull);
  CHECK(hll::murmur_hash64a("The quick brown fox jumps over the lazy dog", hll::hash_seed) == 0x51606c5c5b561aceull);
  // redis-server's PFDEBUG DECODE after one PFADD: "Z:9216 v:1,1 Z:7167", "Z:6862 v:4,1 Z:9521".
  CHECK(hll::pattern_of("hello").index == 9216);
  CHECK(hll::pattern_of("hello").value == 1);
  CHECK(hll::pattern_of("The quick brown fox jumps over the lazy dog").index == 6862);
  CHECK(hll::pattern_of("The quick brown fox jumps over the lazy dog").value == 4);
  CHECK(hll::pattern_of("").index == 5938);
  CHECK(hll::pattern_of("").value == 2);
}

TEST_CASE("a new HLL is Redis's 18-byte sparse string and counts zero", "[hll]") {
  Value v = empty_hll();
  CHECK(bytes_of(v) == std::string("HYLL\x01", 5) + std::string(11, '\0') + "\x7f\xff");
  CHECK(v.encoding() == "raw");
  CHECK(hll::is_hll(bytes_of(v)));
  CHECK(hll::count(bytes_of(v)) == 0u);
  CHECK(hll::cached_count(bytes_of(v)) == 0u);
  hll::invalidate_cache(v);
  CHECK(!hll::cached_count(bytes_of(v)));
  hll::store_cache(v, 1234);
  CHECK(hll::cached_count(bytes_of(v)) == 1234u);
}

TEST_CASE("sparse and dense HLLs fed the same elements hold the same registers and counts", "[hll]") {
  Value sparse = empty_hll();
  Value dense = empty_hll();
  REQUIRE(hll::make_dense(dense));
  REQUIRE(bytes_of(dense).size() == hll::dense_size);
  for (int i = 1; i <= 1000; ++i) {
    const std::string e = std::to_string(i);
    CHECK(hll::add(sparse, e, 1'000'000) == hll::add(dense, e, 1'000'000));
    if (i % 97 == 0) {
      REQUIRE(registers_of(sparse) == registers_of(dense));
      CHECK(hll::count(bytes_of(sparse)) == hll::count(bytes_of(dense)));
    }
  }
  CHECK(hll::encoding_of(bytes_of(sparse)) == hll::encoding_sparse);
  CHECK(hll::count(bytes_of(sparse)) == 1001u);  // redis-server's PFCOUNT for "1".."1000"
  CHECK(hll::add(sparse, "500", 1'000'000) == hll::Change::unchanged);
  // The sparse body turned dense keeps every register and the header's other bytes.
  const hll::Registers before = registers_of(sparse);
  Value copy;
  copy.set_string(bytes_of(sparse));
  REQUIRE(hll::make_dense(copy));
  CHECK(registers_of(copy) == before);
  CHECK(bytes_of(copy).substr(5, 11) == bytes_of(sparse).substr(5, 11));
}

TEST_CASE("a sparse HLL turns dense past hll-sparse-max-bytes or for a register above 32", "[hll]") {
  Value v = empty_hll();
  int i = 0;
  while (hll::encoding_of(bytes_of(v)) == hll::encoding_sparse) {
    CHECK(bytes_of(v).size() <= 100);
    REQUIRE(hll::add(v, std::to_string(i++), 100) != hll::Change::corrupted);
  }
  CHECK(bytes_of(v).size() == hll::dense_size);
  CHECK(i > 10);

  Value w = empty_hll();
  CHECK(hll::set_register(w, 7, 32, 3000) == hll::Change::changed);
  CHECK(hll::encoding_of(bytes_of(w)) == hll::encoding_sparse);
  CHECK(hll::set_register(w, 7, 33, 3000) == hll::Change::changed);
  CHECK(hll::encoding_of(bytes_of(w)) == hll::encoding_dense);
  CHECK(registers_of(w)[7] == 33);
}

TEST_CASE("sparse writes split and merge opcodes as Redis does", "[hll]") {
  Value v = empty_hll();
  REQUIRE(hll::set_register(v, 0, 3, 3000) == hll::Change::changed);  // XZERO -> VAL XZERO
  CHECK(bytes_of(v).substr(16) == "\x88\x7f\xfe");
  REQUIRE(hll::set_register(v, 1, 3, 3000) == hll::Change::changed);  // VAL VAL merge into one run of 2
  CHECK(bytes_of(v).substr(16) == "\x89\x7f\xfd");
  REQUIRE(hll::set_register(v, 100, 1, 3000) == hll::Change::changed);  // XZERO of 98 (past 64), VAL, XZERO
  CHECK(bytes_of(v).substr(16) == "\x89\x40\x61\x80\x7f\x9a");
  REQUIRE(hll::set_register(v, 2, 5, 3000) == hll::Change::changed);  // split at its start: VAL, XZERO of 97
  CHECK(bytes_of(v).substr(16) == "\x89\x90\x40\x60\x80\x7f\x9a");
  CHECK(hll::set_register(v, 100, 1, 3000) == hll::Change::unchanged);
  CHECK((static_cast<unsigned char>(bytes_of(v)[15]) & 0x80) != 0);  // the cache is stale
}

TEST_CASE("merge takes each register's maximum and counts the union", "[hll]") {
  Value a = empty_hll();
  Value b = empty_hll();
  Value both = empty_hll();
  REQUIRE(hll::make_dense(b));
  for (int i = 0; i < 3000; ++i) {
    const std::string e = "e" + std::to_string(i);
    (void)hll::add(i % 2 == 0 ? a : b, e, 3000);
    (void)hll::add(both, e, 3000);
  }
  hll::Registers max{};
  REQUIRE(hll::merge(max, bytes_of(a)));
  REQUIRE(hll::merge(max, bytes_of(b)));
  const hll::Registers ra = registers_of(a);
  const hll::Registers rb = registers_of(b);
  for (std::size_t i = 0; i < hll::register_count; ++i) REQUIRE(max[i] == std::max(ra[i], rb[i]));
  CHECK(max == registers_of(both));
  CHECK(hll::count(max) == hll::count(bytes_of(both)));
}

TEST_CASE("corrupted HLL strings are refused, never read or written past their end", "[hll]") {
  CHECK(!hll::is_hll("HYLL"));
  CHECK(!hll::is_hll(std::string("HYLX\x01", 5) + std::string(13, '\0')));
  CHECK(!hll::is_hll(header(2) + "\x7f\xff"));
  CHECK(!hll::is_hll(header(0) + std::string(12287, '\0')));
  CHECK(!hll::is_hll(header(0) + std::string(12289, '\0')));
  CHECK(hll::is_hll(header(0) + std::string(12288, '\0')));
  CHECK(hll::is_hll(header(1)));  // the header alone passes; its body is checked when used

  hll::Registers max{};
  CHECK(!hll::count(header(1)));                    // no body
  CHECK(!hll::count(header(1) + "\x7f\xfe"));      // one register short
  CHECK(!hll::count(header(1) + "\x7f\xff\x80"));  // one register too many
  CHECK(!hll::count(header(1) + "\x7f"));          // an XZERO cut after its first byte
  CHECK(!hll::merge(max, header(1) + "\x7f\xfe\x83"));  // a VAL run past the last register
  CHECK(!hll::merge(max, header(1) + "\x40"));

  Value v;
  v.set_string(header(1));
  CHECK(hll::add(v, "a", 3000) == hll::Change::corrupted);
  v.set_string(header(1) + "\x7f\xfe\x83");
  const std::string before = bytes_of(v);
  CHECK(!hll::make_dense(v));
  CHECK(bytes_of(v) == before);
  CHECK(hll::set_register(v, 3, 40, 3000) == hll::Change::corrupted);  // the promotion finds it
  CHECK(bytes_of(v) == before);
}

TEST_CASE("the estimator gives Redis's numbers, 2^63 included for impossible registers", "[hll]") {
  hll::Histogram h{};
  h[0] = static_cast<int>(hll::register_count);
  CHECK(hll::estimate(h) == 0);
  hll::Registers all63{};
  all63.fill(63);
  CHECK(hll::count(all63) == std::uint64_t{1} << 63);  // redis-server answers -9223372036854775808
  SessionFixture f;
  std::vector<std::string> cmd = {"PFADD", "k"};
  for (int i = 1; i <= 20000; ++i) cmd.push_back(std::to_string(i));
  CHECK(kvtest::talk(f.session, kvtest::resp(cmd)) == ":1\r\n");
  CHECK(f.cmd({"PFCOUNT", "k"}) == ":19891\r\n");  // redis-server 7.0.15
  CHECK(f.cmd({"STRLEN", "k"}) == ":12304\r\n");
}

TEST_CASE("PFADD PFCOUNT PFMERGE reply as Redis, caching the count in the string", "[hll]") {
  SessionFixture f;
  CHECK(f.cmd({"PFADD", "h"}) == ":1\r\n");
  CHECK(f.cmd({"PFADD", "h"}) == ":0\r\n");
  CHECK(f.cmd({"PFADD", "h", "a", "b", "c"}) == ":1\r\n");
  CHECK(f.cmd({"PFADD", "h", "a"}) == ":0\r\n");
  CHECK(f.cmd({"PFCOUNT", "h"}) == ":3\r\n");
  CHECK(f.cmd({"GETRANGE", "h", "8", "15"}) == std::string("$8\r\n\x03\0\0\0\0\0\0\0\r\n", 14));
  CHECK(f.cmd({"OBJECT", "ENCODING", "h"}) == "$3\r\nraw\r\n");
  CHECK(f.cmd({"PFCOUNT", "h", "nokey"}) == ":3\r\n");
  CHECK(f.cmd({"PFMERGE", "m", "h", "nokey"}) == "+OK\r\n");
  CHECK(f.cmd({"PFCOUNT", "m"}) == ":3\r\n");
  CHECK(f.cmd({"SET", "s", "not an hll at all"}) == "+OK\r\n");
  CHECK(f.cmd({"PFADD", "s", "a"}) == "-WRONGTYPE Key is not a valid HyperLogLog string value.\r\n");
  CHECK(f.cmd({"PFMERGE", "m", "s"}) == "-WRONGTYPE Key is not a valid HyperLogLog string value.\r\n");
  CHECK(f.cmd({"SADD", "set", "a"}) == ":1\r\n");
  CHECK(f.cmd({"PFCOUNT", "set"}) == "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  CHECK(f.cmd({"SET", "bad", header(1) + "\x7f\xfe"}) == "+OK\r\n");
  CHECK(f.cmd({"PFCOUNT", "bad"}) == "-INVALIDOBJ Corrupted HLL object detected\r\n");
  CHECK(f.cmd({"PFCOUNT"}) == "-ERR wrong number of arguments for 'pfcount' command\r\n");
}

TEST_CASE("random bytes behind a valid header never crash PFADD, PFCOUNT or PFMERGE", "[hll][fuzz]") {
  std::mt19937_64 rng(0x28);
  SessionFixture f;
  for (int round = 0; round < 600; ++round) {
    const bool dense = round % 5 == 0;
    std::string body(dense ? hll::dense_size - hll::header_size : rng() % 48, '\0');
    for (char& c : body) c = static_cast<char>(rng());
    if (!dense && rng() % 3 == 0) body.insert(0, "\x7f\xff", 1 + rng() % 2);  // mostly valid, then junk
    const std::string value = header(dense ? 0 : 1) + body;
    f.cmd({"CONFIG", "SET", "hll-sparse-max-bytes", rng() % 2 == 0 ? "3000" : "40"});
    REQUIRE(f.cmd({"SET", "f", value}) == "+OK\r\n");
    INFO("round " << round);
    CHECK(one_reply(f.cmd({"PFCOUNT", "f"})));
    CHECK(one_reply(f.cmd({"PFADD", "f", std::to_string(rng()), std::to_string(rng()), "x", "y", "z"})));
    CHECK(one_reply(f.cmd({"PFMERGE", "g", "f"})));
    CHECK(one_reply(f.cmd({"PFCOUNT", "f", "g"})));
    for (int i = 0; i < 8; ++i) {  // straight at the register writer, with random registers and values
      Value v;
      v.set_string(value);
      const auto value_of = static_cast<std::uint8_t>(1 + rng() % 40);
      const hll::Change c = hll::set_register(v, rng() % hll::register_count, value_of, 64);
      if (c != hll::Change::corrupted) CHECK(hll::is_hll(bytes_of(v)));
    }
  }
  CHECK(f.cmd({"PING"}) == "+PONG\r\n");
}
