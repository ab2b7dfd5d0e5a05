// Reading back the replies the shard layer merges (kv/shard/reply_reader.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "kv/shard/reply_reader.hpp"

using duet::kv::detail::read_bulk;
using duet::kv::detail::read_header;
using duet::kv::detail::read_integer;

TEST_CASE("an integer reply reads back with its sign, up to the 64-bit limits", "[reply_reader]") {
  CHECK(read_integer(":0\r\n") == 0);
  CHECK(read_integer(":42\r\n") == 42);
  CHECK(read_integer(":-7\r\n") == -7);
  CHECK(read_integer(":9223372036854775807\r\n") == std::numeric_limits<std::int64_t>::max());
  CHECK(read_integer(":-9223372036854775808\r\n") == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("a header that is not a well-formed number is refused, and leaves the position alone",
          "[reply_reader]") {
  for (const std::string bad : {":9223372036854775808\r\n", ":-9223372036854775809\r\n", ":18446744073709551616\r\n",
                                ":12345678901234567890123\r\n", ":\r\n", ":-\r\n", ":12", ":12\r", ":12\n", ":1x\r\n",
                                ":+1\r\n", "$3\r\n", ""}) {
    INFO(bad);
    std::size_t at = 0;
    CHECK_FALSE(read_header(bad, at, ':'));
    CHECK(at == 0);
  }
}

TEST_CASE("bulk strings and nulls read one after another from one reply", "[reply_reader]") {
  const std::string reply = "*3\r\n$3\r\nfoo\r\n$-1\r\n$0\r\n\r\n";
  std::size_t at = 0;
  CHECK(read_header(reply, at, '*') == 3);
  auto first = read_bulk(reply, at);
  REQUIRE(first);
  CHECK(*first == std::optional<std::string_view>("foo"));
  auto second = read_bulk(reply, at);
  REQUIRE(second);
  CHECK_FALSE(second->has_value());
  auto third = read_bulk(reply, at);
  REQUIRE(third);
  CHECK(*third == std::optional<std::string_view>(""));
  CHECK(at == reply.size());
  CHECK_FALSE(read_bulk(reply, at));  // nothing left
}

TEST_CASE("a bulk string longer than the reply is refused", "[reply_reader]") {
  std::size_t at = 0;
  CHECK_FALSE(read_bulk("$5\r\nabc\r\n", at));
}
