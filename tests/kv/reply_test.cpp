// Reply: each RESP3 type, and its RESP2 downgrade as Redis 7.0 writes it.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "kv/reply.hpp"

using duet::kv::Reply;

namespace {

template <class Write>
std::string written(int protocol, Write write) {
  std::string out;
  Reply reply(out, protocol);
  write(reply);
  return out;
}

}  // namespace

TEST_CASE("a map is a RESP3 map and a flat array of twice its pairs in RESP2", "[kv][reply]") {
  auto write = [](Reply& r) {
    r.map(1);
    r.bulk("f");
    r.integer(1);
  };
  CHECK(written(3, write) == "%1\r\n$1\r\nf\r\n:1\r\n");
  CHECK(written(2, write) == "*2\r\n$1\r\nf\r\n:1\r\n");
}

TEST_CASE("sets and pushes have their own types in RESP3 and are arrays in RESP2", "[kv][reply]") {
  CHECK(written(3, [](Reply& r) { r.set(2); }) == "~2\r\n");
  CHECK(written(2, [](Reply& r) { r.set(2); }) == "*2\r\n");
  CHECK(written(3, [](Reply& r) { r.push(3); }) == ">3\r\n");
  CHECK(written(2, [](Reply& r) { r.push(3); }) == "*3\r\n");
}

TEST_CASE("both nulls are RESP3's null and keep their own RESP2 forms", "[kv][reply]") {
  CHECK(written(3, [](Reply& r) { r.null(); }) == "_\r\n");
  CHECK(written(3, [](Reply& r) { r.null_array(); }) == "_\r\n");
  CHECK(written(2, [](Reply& r) { r.null(); }) == "$-1\r\n");
  CHECK(written(2, [](Reply& r) { r.null_array(); }) == "*-1\r\n");
}

TEST_CASE("a double is a RESP3 double and a bulk string in RESP2, infinities spelled out", "[kv][reply]") {
  CHECK(written(3, [](Reply& r) { r.double_value(1.5); }) == ",1.5\r\n");
  CHECK(written(2, [](Reply& r) { r.double_value(1.5); }) == "$3\r\n1.5\r\n");
  CHECK(written(3, [](Reply& r) { r.double_value(0.1); }) == ",0.10000000000000001\r\n");  // %.17g as Redis
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(written(3, [&](Reply& r) { r.double_value(-inf); }) == ",-inf\r\n");
  CHECK(written(2, [&](Reply& r) { r.double_value(inf); }) == "$3\r\ninf\r\n");
}

TEST_CASE("booleans and verbatim strings downgrade to integers and bulk strings", "[kv][reply]") {
  CHECK(written(3, [](Reply& r) { r.boolean(true); }) == "#t\r\n");
  CHECK(written(3, [](Reply& r) { r.boolean(false); }) == "#f\r\n");
  CHECK(written(2, [](Reply& r) { r.boolean(true); }) == ":1\r\n");
  CHECK(written(3, [](Reply& r) { r.verbatim("a\r\nb"); }) == "=8\r\ntxt:a\r\nb\r\n");
  CHECK(written(2, [](Reply& r) { r.verbatim("a\r\nb"); }) == "$4\r\na\r\nb\r\n");
}

TEST_CASE("HELLO's switch applies to the rest of the reply being written", "[kv][reply]") {
  std::string out;
  Reply reply(out);
  reply.null();
  reply.set_protocol(3);
  reply.null();
  CHECK(out == "$-1\r\n_\r\n");
  CHECK(reply.protocol() == 3);
}
