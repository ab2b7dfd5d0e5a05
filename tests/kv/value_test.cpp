// Value and CompactString: the encodings a key's value takes.
#include <catch2/catch.hpp>

#include "kv/value/compact_string.hpp"
#include "kv/value/value.hpp"

using duet::kv::CompactString;
using duet::kv::Value;

TEST_CASE("a canonical integer is stored as an integer and reads back as its text", "[value]") {
  Value v;
  v.set_string("-12345");
  Value::Scratch s;
  CHECK(v.encoding() == "int");
  CHECK(v.str(s) == "-12345");
  std::int64_t n = 0;
  CHECK(v.int_value(n));
  CHECK(n == -12345);
  for (const char* text : {"012", "+1", " 1", "-0", "99999999999999999999"}) {
    v.set_string(text);
    CHECK(v.encoding() == "embstr");
    CHECK(v.str(s) == text);
  }
}

TEST_CASE("strings up to 44 bytes are embstr and longer or grown ones are raw", "[value]") {
  Value v;
  Value::Scratch s;
  std::string long44(44, 'x');
  v.set_string(long44);
  CHECK(v.encoding() == "embstr");
  CHECK(v.str(s) == long44);
  v.set_string(std::string(45, 'y'));
  CHECK(v.encoding() == "raw");
  v.set_string("abc");
  char* p = v.resize_raw(5);
  CHECK(v.encoding() == "raw");
  CHECK(std::string_view(p, 5) == std::string_view("abc\0\0", 5));
  v.set_string("7");
  v.resize_raw(1);
  CHECK(v.str(s) == "7");
}

TEST_CASE("a clone is a deep copy and moving leaves the empty string", "[value]") {
  Value v;
  v.set_string(std::string(100, 'z'));
  Value c = v.clone();
  Value::Scratch s;
  v.resize_raw(3)[0] = 'a';
  CHECK(c.str(s) == std::string(100, 'z'));
  Value moved = std::move(c);
  CHECK(c.str(s).empty());  // NOLINT(bugprone-use-after-move): the contract says so
  CHECK(moved.allocated() >= 100);
}

TEST_CASE("a compact string keeps up to 15 bytes inside and longer ones on the heap", "[value]") {
  CompactString a("123456789012345");
  CHECK_FALSE(a.is_heap());
  CHECK(a.view() == "123456789012345");
  CompactString b(std::string(16, 'k'));
  CHECK(b.is_heap());
  CHECK(b.view() == std::string(16, 'k'));
  a = std::move(b);
  CHECK(a.view() == std::string(16, 'k'));
  CHECK(b.view().empty());  // NOLINT(bugprone-use-after-move)
}
