// The buffered reader's and writer's voice-neutral core (io/detail/buffered_core.hpp),
// without sockets: answers, limits, growth, and a fuzz test that feeds one byte
// stream in random pieces and compares every read with a reference splitter
// (tests/support/buffered_reference.hpp). The voices' own tests run the same
// fuzz over real sockets with fewer iterations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "duet/io/detail/buffered_core.hpp"
#include "support/buffered_reference.hpp"

namespace {

using duet::IoResult;
using duet::detail::ReadBuffer;
using duet::detail::ReadRequest;
using duet::detail::WriteBuffer;
using duet::test::Outcome;

// Feeds `bytes` into the buffer as the voices do: recv_space, copy, commit.
void feed(ReadBuffer& buf, const ReadRequest& req, std::string_view bytes) {
  while (!bytes.empty()) {
    const auto space = buf.recv_space(req);
    const std::size_t n = std::min(space.size(), bytes.size());
    std::memcpy(space.data(), bytes.data(), n);
    buf.commit(n);
    bytes.remove_prefix(n);
  }
}

// A reader over a stream delivered in the given pieces: the core driven exactly as the voices drive it.
class PieceReader {
 public:
  PieceReader(std::string_view stream, std::vector<std::size_t> pieces, std::size_t capacity)
      : stream_(stream), pieces_(std::move(pieces)), buffer_(capacity) {}

  IoResult<std::string_view> read(ReadRequest req) {
    for (;;) {
      if (auto done = buffer_.try_complete(req)) return *done;
      if (next_ == pieces_.size()) return duet::io_errc::eof;
      const auto space = buffer_.recv_space(req);
      REQUIRE(!space.empty());
      // A receive gets at most what the kernel has (this piece) and what fits.
      const std::size_t n = std::min(space.size(), pieces_[next_] - used_);
      std::memcpy(space.data(), stream_.data() + offset_, n);
      buffer_.commit(n);
      offset_ += n;
      used_ += n;
      if (used_ == pieces_[next_]) ++next_, used_ = 0;
    }
  }
  IoResult<std::string_view> read(const duet::test::ReadOp& op) {
    using Kind = duet::test::ReadOp::Kind;
    switch (op.kind) {
      case Kind::line: return read(ReadRequest::line(op.n));
      case Kind::until_char: return read(ReadRequest::until('\n', op.n));
      case Kind::until_string: return read(ReadRequest::until(duet::test::fuzz_delim, op.n));
      case Kind::exactly: return read(ReadRequest::exactly(op.n));
      case Kind::peek: return read(ReadRequest::peek(op.n));
    }
    return std::make_error_code(std::errc::invalid_argument);
  }
  [[nodiscard]] std::string_view buffered() const noexcept { return buffer_.buffered(); }
  void consume(std::size_t n) noexcept { buffer_.consume(n); }
  [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.capacity(); }

 private:
  std::string_view stream_;
  std::vector<std::size_t> pieces_;
  std::size_t next_ = 0, used_ = 0, offset_ = 0;
  ReadBuffer buffer_;
};

TEST_CASE("the buffered core splits a stream in random pieces exactly as the reference splitter does") {
  std::mt19937 rng(20261206);
  for (int iteration = 0; iteration < 400; ++iteration) {
    INFO("iteration " << iteration);
    const auto script = duet::test::random_script(rng);
    const auto expected = duet::test::reference_outcomes(script);
    // Tiny capacities force compaction and growth in the middle of a line.
    PieceReader reader(script.stream, duet::test::random_pieces(rng, script.stream.size(), 1 + rng() % 16),
                       1 + rng() % 64);
    std::vector<Outcome> got;
    for (const auto& op : script.ops) {
      if (!duet::test::record(got, reader.read(op), reader)) break;
    }
    REQUIRE(got == expected);
  }
}

TEST_CASE("the buffered core answers a line from the buffer as a view into it, without moving bytes") {
  ReadBuffer buf(64);
  auto req = ReadRequest::line(16);
  feed(buf, req, "one\r\ntwo\n");
  const char* start = buf.buffered().data();
  auto one = buf.try_complete(req);
  REQUIRE(one);
  CHECK(**one == "one");
  CHECK(one->value().data() == start);
  auto two = buf.try_complete(req);
  REQUIRE(two);
  CHECK(**two == "two");
  CHECK(two->value().data() == start + 5);
  CHECK(!buf.try_complete(req));
}

TEST_CASE("a line longer than its maximum is message_size and consumes nothing") {
  ReadBuffer buf(64);
  auto req = ReadRequest::line(3);
  feed(buf, req, "abcd\nxy\n");
  auto r = buf.try_complete(req);
  REQUIRE(r);
  CHECK(r->error() == std::errc::message_size);
  CHECK(buf.buffered() == "abcd\nxy\n");
  auto skip = ReadRequest::until('\n', 100);
  CHECK(buf.try_complete(skip).value().value() == "abcd\n");
  CHECK(buf.try_complete(req).value().value() == "xy");
  // "\r\n" does not count against the maximum: "abc\r\n" fits in 3.
  feed(buf, req, "abc\r\n");
  CHECK(buf.try_complete(req).value().value() == "abc");
}

TEST_CASE("without a delimiter in sight the core says message_size once the window is full, not before") {
  ReadBuffer buf(8);
  auto req = ReadRequest::until(std::string_view("\r\n"), 6);
  feed(buf, req, "abcde");
  CHECK(!buf.try_complete(req));
  feed(buf, req, "\r");
  CHECK(buf.try_complete(req).value().error() == std::errc::message_size);  // "\r\n" would end at byte 7
}

TEST_CASE("an empty delimiter is invalid_argument, not an endless empty answer") {
  ReadBuffer buf(8);
  auto req = ReadRequest::until(std::string_view(), 8);
  feed(buf, req, "abc");
  const auto r = buf.try_complete(req);
  REQUIRE(r);
  CHECK(r->error() == std::errc::invalid_argument);
  CHECK(buf.buffered() == "abc");
}

TEST_CASE("the core grows its buffer for a large read_exactly and no further") {
  ReadBuffer buf(16);
  auto req = ReadRequest::exactly(1000);
  feed(buf, req, std::string(1000, 'x'));
  CHECK(buf.capacity() == 1000);
  CHECK(buf.try_complete(req).value().value().size() == 1000);
}

TEST_CASE("the write buffer coalesces small writes and sends at the threshold") {
  WriteBuffer w(8);
  CHECK(w.write("abc").empty());
  CHECK(w.write("de").empty());
  auto sends = w.write("fgh");
  CHECK(sends.buffered == "abcdefgh");
  CHECK(sends.direct.empty());
  w.sent();
  CHECK(w.pending().empty());
}

TEST_CASE("the write buffer sends a chunk at least the threshold from the caller's memory, after what it held") {
  WriteBuffer w(8);
  CHECK(w.write("ab").empty());
  const std::string big(20, 'z');
  auto sends = w.write(big);
  CHECK(sends.buffered == "ab");
  CHECK(sends.direct.data() == big.data());
  w.sent();
  CHECK(w.flush().empty());
}

TEST_CASE("a failed write buffer keeps its first error and drops what it held") {
  WriteBuffer w(8);
  CHECK(w.write("abc").empty());
  CHECK(w.fail(std::make_error_code(std::errc::broken_pipe)) == std::errc::broken_pipe);
  CHECK(w.error() == std::errc::broken_pipe);
  CHECK(w.pending().empty());
}

}  // namespace
