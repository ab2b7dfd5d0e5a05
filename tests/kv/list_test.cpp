// The list module: ListObject against a std::deque under seeded random
// operations across node limits, and the list commands through Session with
// Redis's exact replies for the tricky cases.
#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "kv/types/list.hpp"
#include "kv_test_util.hpp"

using duet::kv::ListEnd;
using duet::kv::ListObject;

namespace {

std::vector<std::string> contents(const ListObject& list) {
  std::vector<std::string> out;
  if (list.size() == 0) return out;
  list.visit(0, list.size(), false, [&](std::size_t, std::string_view e) {
    out.emplace_back(e);
    return true;
  });
  return out;
}

// Walked from the tail: through the elements' back-lengths.
std::vector<std::string> contents_backward(const ListObject& list) {
  std::vector<std::string> out;
  if (list.size() == 0) return out;
  list.visit(list.size() - 1, list.size(), true, [&](std::size_t, std::string_view e) {
    out.emplace_back(e);
    return true;
  });
  return {out.rbegin(), out.rend()};
}

std::string random_element(std::mt19937& rng) {
  static const char* const words[] = {"a", "b", "c", "hello", ""};
  if (rng() % 64 == 0) return std::string(5000 + rng() % 5000, 'L');  // over a node's byte limit
  switch (rng() % 4) {
    case 0: return words[rng() % 5];
    case 1: return std::to_string(rng() % 1000);
    case 2: return std::string(rng() % 300, 'x');  // two-byte lengths, nodes over their byte limit
    default: return std::string(1 + rng() % 20, static_cast<char>('a' + rng() % 3));
  }
}

// One random change applied to both the list and the model.
void random_step(std::mt19937& rng, ListObject& list, std::deque<std::string>& model, int fill) {
  const std::size_t n = model.size();
  const std::string e = random_element(rng);
  switch (rng() % 9) {
    case 0: list.push(ListEnd::head, e, fill); model.push_front(e); break;
    case 1: case 2: list.push(ListEnd::tail, e, fill); model.push_back(e); break;
    case 3: {
      const std::size_t at = n == 0 ? 0 : rng() % (n + 1);
      list.insert(at, e, fill);
      model.insert(model.begin() + static_cast<std::ptrdiff_t>(at), e);
      break;
    }
    case 4:
      if (n == 0) break;
      {
        std::string out;
        const bool head = rng() % 2 == 0;
        list.pop(head ? ListEnd::head : ListEnd::tail, out);
        REQUIRE(out == (head ? model.front() : model.back()));
        head ? model.pop_front() : model.pop_back();
      }
      break;
    case 5:
      if (n == 0) break;
      {
        const std::size_t at = rng() % n;
        list.replace(at, e, fill);
        model[at] = e;
      }
      break;
    case 6: {
      const std::size_t at = n == 0 ? 0 : rng() % n;
      const std::size_t count = rng() % 40;
      list.erase(at, count);
      model.erase(model.begin() + static_cast<std::ptrdiff_t>(std::min(at, n)),
                  model.begin() + static_cast<std::ptrdiff_t>(std::min(n, at + count)));
      break;
    }
    case 7: {
      const std::size_t skip = rng() % 3;
      const std::size_t limit = rng() % 4;
      std::size_t seen = 0;
      std::size_t removed = 0;
      std::deque<std::string> kept;
      for (const std::string& x : model) {
        const bool match = x == e && (limit == 0 || removed < limit);
        if (match && seen++ >= skip) {
          ++removed;
        } else {
          kept.push_back(x);
        }
      }
      REQUIRE(list.remove(e, skip, limit) == removed);
      model.swap(kept);
      break;
    }
    default:
      if (n == 0) break;
      {
        const std::size_t at = rng() % n;
        REQUIRE(list.at(at) == model[at]);
      }
  }
}

}  // namespace

TEST_CASE("a list matches a deque under random pushes, pops, inserts and removals at every node limit", "[list]") {
  for (int fill : {1, 3, 128, -1, -2, -5}) {
    std::mt19937 rng(static_cast<unsigned>(1000 + fill));
    const std::int64_t before = duet::kv::detail::t_counted_bytes;
    {
      auto list = duet::kv::make_object<ListObject>();
      std::deque<std::string> model;
      for (int step = 0; step < 4000; ++step) {
        random_step(rng, *list, model, fill);
        REQUIRE(list->size() == model.size());
        if (step % 97 == 0) {
          REQUIRE(contents(*list) == std::vector<std::string>(model.begin(), model.end()));
          REQUIRE(contents_backward(*list) == std::vector<std::string>(model.begin(), model.end()));
          REQUIRE(static_cast<std::int64_t>(list->memory_usage()) == duet::kv::detail::t_counted_bytes - before);
        }
      }
      REQUIRE(contents(*list) == std::vector<std::string>(model.begin(), model.end()));
    }
    REQUIRE(duet::kv::detail::t_counted_bytes == before);  // every byte given back
  }
}

TEST_CASE("visiting backwards yields the elements from an index towards the head", "[list]") {
  ListObject list;
  for (int i = 0; i < 50; ++i) list.push(ListEnd::tail, std::to_string(i), 4);
  std::vector<std::string> seen;
  list.visit(30, 100, true, [&](std::size_t index, std::string_view e) {
    REQUIRE(std::to_string(index) == e);
    seen.emplace_back(e);
    return true;
  });
  REQUIRE(seen.size() == 31);
  REQUIRE(seen.front() == "30");
  REQUIRE(seen.back() == "0");
}

TEST_CASE("nodes hold as many elements as list-max-listpack-size allows", "[list]") {
  ListObject by_count;
  for (int i = 0; i < 10; ++i) by_count.push(ListEnd::tail, "x", 3);
  REQUIRE(by_count.node_count() == 4);
  ListObject by_bytes;  // -1: 4 KiB nodes; a 33-byte anchor, then 71 bytes an element (32 shared)
  for (int i = 0; i < 100; ++i) by_bytes.push(ListEnd::head, std::string(100, 'y'), -1);
  REQUIRE(by_bytes.node_count() == 2);
  ListObject by_elements;  // and never more than 128 elements, however small
  for (int i = 0; i < 5000; ++i) by_elements.push(ListEnd::head, "y", -1);
  REQUIRE(by_elements.node_count() == 40);
  ListObject huge;  // an element bigger than any node still gets one
  huge.push(ListEnd::tail, std::string(70000, 'z'), -5);
  huge.push(ListEnd::tail, std::string(70000, 'z'), -5);
  REQUIRE(huge.node_count() == 2);
}

TEST_CASE("replacing an element with one too big for its node moves it to a node of its own", "[list]") {
  ListObject list;
  for (int i = 0; i < 9; ++i) list.push(ListEnd::tail, std::to_string(i), -1);
  REQUIRE(list.node_count() == 1);
  list.replace(4, std::string(5000, 'b'), -1);
  REQUIRE(list.node_count() == 3);
  list.replace(0, std::string(5000, 'a'), -1);
  REQUIRE(list.node_count() == 4);
  REQUIRE(contents(list) == std::vector<std::string>{std::string(5000, 'a'), "1", "2", "3", std::string(5000, 'b'),
                                                     "5", "6", "7", "8"});
}

TEST_CASE("elements that start like their node's first one are stored in a few bytes each", "[list]") {
  ListObject list;
  for (int i = 0; i < 1000; ++i) list.push(ListEnd::tail, "element:" + std::to_string(100000 + i), -2);
  REQUIRE(list.memory_usage() < 1000 * 9);  // 14-byte elements, with growth slack
  REQUIRE(list.at(999) == "element:100999");
  ListObject unlike;  // a long first element lends at most 32 bytes to the anchor
  unlike.push(ListEnd::tail, std::string(1000, 'a'), -2);
  unlike.push(ListEnd::tail, "b", -2);
  std::string out;
  unlike.pop(ListEnd::head, out);
  REQUIRE(out == std::string(1000, 'a'));
  REQUIRE(unlike.memory_usage() < sizeof(ListObject) + 100);
}

TEST_CASE("a list's records rebuild it with at most 64 elements per RPUSH", "[list]") {
  ListObject list;
  for (int i = 0; i < 150; ++i) list.push(ListEnd::tail, std::to_string(i), -2);
  std::vector<std::string> rebuilt;
  std::vector<std::size_t> sizes;
  list.write_records("k", [&](std::span<const std::string_view> argv) {
    REQUIRE(argv[0] == "RPUSH");
    REQUIRE(argv[1] == "k");
    sizes.push_back(argv.size() - 2);
    for (std::size_t j = 2; j < argv.size(); ++j) rebuilt.emplace_back(argv[j]);
  });
  REQUIRE(sizes == std::vector<std::size_t>{64, 64, 22});
  REQUIRE(rebuilt == contents(list));
  auto copy = list.clone();
  REQUIRE(contents(static_cast<const ListObject&>(*copy)) == rebuilt);
}

TEST_CASE("pops with a count answer Redis's nil array on a missing key and pop order otherwise", "[list]") {
  kvtest::SessionFixture f;
  REQUIRE(f.cmd({"LPOP", "nokey", "2"}) == "*-1\r\n");
  REQUIRE(f.cmd({"LPOP", "nokey"}) == "$-1\r\n");
  REQUIRE(f.cmd({"RPUSH", "l", "a", "b", "c"}) == ":3\r\n");
  REQUIRE(f.cmd({"LPOP", "l", "0"}) == "*0\r\n");
  REQUIRE(f.cmd({"LPOP", "l", "-1"}) == "-ERR value is out of range, must be positive\r\n");
  REQUIRE(f.cmd({"RPOP", "l", "2"}) == "*2\r\n$1\r\nc\r\n$1\r\nb\r\n");
  REQUIRE(f.cmd({"LPOP", "l", "9223372036854775807"}) == "*1\r\n$1\r\na\r\n");
  REQUIRE(f.cmd({"EXISTS", "l"}) == ":0\r\n");
  REQUIRE(f.cmd({"LPOP", "l", "1", "2"}) == "-ERR wrong number of arguments for 'lpop' command\r\n");
}

TEST_CASE("ranges and indexes follow Redis's clamping, however large the numbers", "[list]") {
  kvtest::SessionFixture f;
  f.cmd({"RPUSH", "l", "a", "b", "c"});
  REQUIRE(f.cmd({"LRANGE", "l", "-9223372036854775808", "9223372036854775807"}) ==
          "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
  REQUIRE(f.cmd({"LRANGE", "l", "2", "1"}) == "*0\r\n");
  REQUIRE(f.cmd({"LINDEX", "l", "-1"}) == "$1\r\nc\r\n");
  REQUIRE(f.cmd({"LINDEX", "l", "-9223372036854775808"}) == "$-1\r\n");
  REQUIRE(f.cmd({"LSET", "l", "3", "x"}) == "-ERR index out of range\r\n");
  REQUIRE(f.cmd({"LSET", "nokey", "x", "x"}) == "-ERR no such key\r\n");
  REQUIRE(f.cmd({"LTRIM", "l", "1", "-1"}) == "+OK\r\n");
  REQUIRE(f.cmd({"LRANGE", "l", "0", "-1"}) == "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
  REQUIRE(f.cmd({"LTRIM", "l", "5", "9"}) == "+OK\r\n");
  REQUIRE(f.cmd({"EXISTS", "l"}) == ":0\r\n");
}

TEST_CASE("LPOS finds matches by rank, count and maxlen from either end", "[list]") {
  kvtest::SessionFixture f;
  f.cmd({"RPUSH", "l", "a", "b", "c", "b", "b"});
  REQUIRE(f.cmd({"LPOS", "l", "b"}) == ":1\r\n");
  REQUIRE(f.cmd({"LPOS", "l", "b", "RANK", "-1"}) == ":4\r\n");
  REQUIRE(f.cmd({"LPOS", "l", "b", "COUNT", "0"}) == "*3\r\n:1\r\n:3\r\n:4\r\n");
  REQUIRE(f.cmd({"LPOS", "l", "b", "RANK", "2", "COUNT", "1"}) == "*1\r\n:3\r\n");
  REQUIRE(f.cmd({"LPOS", "l", "b", "MAXLEN", "1"}) == "$-1\r\n");
  REQUIRE(f.cmd({"LPOS", "l", "b", "RANK", "-9223372036854775808"}) == ":4\r\n");
  REQUIRE(f.cmd({"LPOS", "nokey", "b", "COUNT", "1"}) == "*0\r\n");
}

TEST_CASE("LMPOP pops from the first non-empty list and answers its key", "[list]") {
  kvtest::SessionFixture f;
  f.cmd({"RPUSH", "b", "1", "2", "3"});
  REQUIRE(f.cmd({"LMPOP", "2", "a", "b", "RIGHT", "COUNT", "2"}) == "*2\r\n$1\r\nb\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n");
  REQUIRE(f.cmd({"LMPOP", "1", "a", "LEFT"}) == "*-1\r\n");
  REQUIRE(f.cmd({"LMPOP", "9223372036854775807", "a", "LEFT"}) == "-ERR syntax error\r\n");
  REQUIRE(f.cmd({"LMPOP", "1", "b", "LEFT", "COUNT", "1", "COUNT", "1"}) == "-ERR syntax error\r\n");
}

TEST_CASE("LMOVE on one key rotates it and a wrong-typed destination pops nothing", "[list]") {
  kvtest::SessionFixture f;
  f.cmd({"RPUSH", "l", "a", "b"});
  REQUIRE(f.cmd({"LMOVE", "l", "l", "LEFT", "RIGHT"}) == "$1\r\na\r\n");
  REQUIRE(f.cmd({"LRANGE", "l", "0", "-1"}) == "*2\r\n$1\r\nb\r\n$1\r\na\r\n");
  f.cmd({"SET", "s", "x"});
  REQUIRE(f.cmd({"RPOPLPUSH", "l", "s"}).starts_with("-WRONGTYPE"));
  REQUIRE(f.cmd({"LLEN", "l"}) == ":2\r\n");
  REQUIRE(f.cmd({"OBJECT", "ENCODING", "l"}) == "$9\r\nquicklist\r\n");
}
