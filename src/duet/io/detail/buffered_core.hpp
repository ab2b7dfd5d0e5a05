// duet::detail::ReadBuffer, ReadRequest, WriteBuffer — the voice-neutral core of
// BufferedReader and BufferedWriter (task/buffered.hpp, stackful/buffered.hpp).
//
// Contract
// - No I/O here. A reader's call is a ReadRequest (until a delimiter, a line,
//   exactly n, peek n, some); ReadBuffer::try_complete answers it from the bytes
//   already buffered, or says "receive more" (nullopt); the voice then receives
//   into recv_space(request), commit()s, and asks again. So every rule (what a
//   line is, the maximum, what EOF leaves behind) lives here once.
// - Answers are string_views into the buffer, valid until the next recv_space
//   (the voices document it as "until the next read"); no copy, no allocation
//   unless the buffer must grow for a request larger than it.
// - WriteBuffer decides what a write sends now (nothing, the buffer, or the
//   buffer then the caller's big chunk uncopied) and keeps the first error.
// - One owner, one thread; not copyable (the answers point into it).
//
//   ReadRequest req = ReadRequest::line(4096);
//   while (!(answer = buf.try_complete(req))) buf.commit(recv(buf.recv_space(req)));
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "duet/io/io_result.hpp"

namespace duet::detail {

// One read: what it waits for, and how far it has already searched.
class ReadRequest {
 public:
  enum class Kind : std::uint8_t { until, line, exactly, peek, some };

  // Up to and including the delimiter; at most max_length bytes in all.
  static ReadRequest until(char delim, std::size_t max_length) noexcept {
    ReadRequest r(Kind::until, max_length);
    r.one_ = delim;
    r.single_ = true;
    return r;
  }
  // delim must outlive the read (true of any argument inside one co_await).
  static ReadRequest until(std::string_view delim, std::size_t max_length) noexcept {
    ReadRequest r(Kind::until, max_length);
    r.many_ = delim;
    return r;
  }
  // A line without its "\n" or "\r\n"; at most max_length bytes before them.
  static ReadRequest line(std::size_t max_length) noexcept {
    ReadRequest r(Kind::line, max_length);
    r.one_ = '\n';
    r.single_ = true;
    return r;
  }
  static ReadRequest exactly(std::size_t n) noexcept { return {Kind::exactly, n}; }
  static ReadRequest peek(std::size_t n) noexcept { return {Kind::peek, n}; }
  static ReadRequest some() noexcept { return {Kind::some, 1}; }

  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  [[nodiscard]] std::string_view delim() const noexcept { return single_ ? std::string_view(&one_, 1) : many_; }
  // How many buffered bytes settle the request: the size asked for, or the
  // window a delimiter must appear in (a line's may end in "\r\n": 2 more).
  [[nodiscard]] std::size_t window() const noexcept {
    if (kind_ != Kind::line) return size_;
    return size_ > std::numeric_limits<std::size_t>::max() - 2 ? size_ : size_ + 2;
  }

 private:
  friend class ReadBuffer;
  ReadRequest(Kind kind, std::size_t size) noexcept : kind_(kind), size_(size) {}

  Kind kind_;
  char one_ = 0;
  bool single_ = false;    // the delimiter is one_, else many_
  std::string_view many_;
  std::size_t size_;       // max_length (until, line) or n (exactly, peek)
  std::size_t scanned_ = 0;  // buffered bytes already searched in vain: a refill searches only the new ones
};

class ReadBuffer {
 public:
  // capacity: the first allocation (made at the first receive); the buffer
  // grows past it only for a request that needs more (a long line, read_exactly(n)).
  explicit ReadBuffer(std::size_t capacity) noexcept : initial_(std::max<std::size_t>(capacity, 16)) {}
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  ~ReadBuffer() = default;

  [[nodiscard]] std::string_view buffered() const noexcept { return {data_.get() + begin_, end_ - begin_}; }
  void consume(std::size_t n) noexcept { begin_ += std::min(n, end_ - begin_); }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

  // The answer if the buffered bytes settle the request (consumed, unless a
  // peek), nullopt if it needs more. message_size when a delimiter is not within
  // the maximum, or a line is longer than its maximum: nothing is consumed then
  // (invalid_argument for an empty delimiter).
  std::optional<IoResult<std::string_view>> try_complete(ReadRequest& req) noexcept {
    const std::string_view have = buffered();
    switch (req.kind_) {
      case ReadRequest::Kind::some:
        if (have.empty()) return std::nullopt;
        return take(have.size());
      case ReadRequest::Kind::exactly:
        if (have.size() < req.size_) return std::nullopt;
        return take(req.size_);
      case ReadRequest::Kind::peek:
        if (have.size() < req.size_) return std::nullopt;
        return IoResult<std::string_view>(have.substr(0, req.size_));
      case ReadRequest::Kind::until:
      case ReadRequest::Kind::line:
        return scan(req, have);
    }
    return std::nullopt;
  }

  // Where the next receive writes, sized for req: consumed bytes are moved out
  // of the way first, then the buffer grows (doubling) up to what req may need.
  std::span<char> recv_space(const ReadRequest& req) {
    const std::size_t live = end_ - begin_;
    const std::size_t need = req.kind_ == ReadRequest::Kind::exactly || req.kind_ == ReadRequest::Kind::peek
                                 ? std::max(req.size_, live + 1)
                                 : live + 1;
    if (live == 0) begin_ = end_ = 0;
    if (begin_ > 0 && (capacity_ - end_ < capacity_ / 2 || begin_ + need > capacity_)) compact();
    if (need > capacity_ - begin_) grow(need, std::max(need, req.window()));
    return {data_.get() + end_, capacity_ - end_};
  }
  void commit(std::size_t n) noexcept { end_ += std::min(n, capacity_ - end_); }

 private:
  IoResult<std::string_view> take(std::size_t n) noexcept {
    const std::string_view answer(data_.get() + begin_, n);
    begin_ += n;
    return answer;
  }

  std::optional<IoResult<std::string_view>> scan(ReadRequest& req, std::string_view have) noexcept {
    const std::string_view delim = req.delim();
    if (delim.empty()) return IoResult<std::string_view>(std::make_error_code(std::errc::invalid_argument));
    const std::string_view window = have.substr(0, req.window());
    const std::size_t from = req.scanned_ >= delim.size() ? req.scanned_ - (delim.size() - 1) : 0;
    const std::size_t at = window.find(delim, from);
    if (at == std::string_view::npos) {
      if (have.size() >= req.window()) return too_long();
      req.scanned_ = window.size();
      return std::nullopt;
    }
    std::size_t length = at + delim.size();
    if (req.kind_ == ReadRequest::Kind::until) return take(length);
    length = at > 0 && have[at - 1] == '\r' ? at - 1 : at;  // the line without "\n" or "\r\n"
    if (length > req.size_) return too_long();
    begin_ += at + 1;
    return IoResult<std::string_view>(have.substr(0, length));
  }
  static std::optional<IoResult<std::string_view>> too_long() noexcept {
    return IoResult<std::string_view>(std::make_error_code(std::errc::message_size));
  }

  void compact() noexcept {
    std::memmove(data_.get(), data_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  // To at least `need` live bytes from offset 0, doubling, capped at `limit`
  // (what the request can use) unless the first allocation is larger.
  void grow(std::size_t need, std::size_t limit) {
    std::size_t cap = capacity_ == 0 ? initial_ : std::min(std::max(capacity_ * 2, need), std::max(limit, need));
    cap = std::max(cap, need);
    auto bigger = std::make_unique_for_overwrite<char[]>(cap);
    if (end_ > begin_) std::memcpy(bigger.get(), data_.get() + begin_, end_ - begin_);
    data_ = std::move(bigger);
    end_ -= begin_;
    begin_ = 0;
    capacity_ = cap;
  }

  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last received byte
  std::size_t initial_;
};

// Coalesces writes; the voices send what write() and flush() return.
class WriteBuffer {
 public:
  // What to send now, in order; both empty: nothing (the bytes were buffered).
  struct Sends {
    std::string_view buffered;
    std::string_view direct;  // a chunk at least the threshold: sent from the caller's memory
    [[nodiscard]] bool empty() const noexcept { return buffered.empty() && direct.empty(); }
  };

  explicit WriteBuffer(std::size_t threshold) noexcept : threshold_(std::max<std::size_t>(threshold, 1)) {}
  WriteBuffer(const WriteBuffer&) = delete;  // two writers of one stream's bytes: never
  WriteBuffer& operator=(const WriteBuffer&) = delete;
  ~WriteBuffer() = default;

  Sends write(std::string_view data) {
    if (data.size() >= threshold_) return {pending(), data};
    if (bytes_.capacity() < threshold_) bytes_.reserve(threshold_ * 2);  // once: the fast path never allocates
    bytes_.append(data);
    if (bytes_.size() >= threshold_) return {pending(), {}};
    return {};
  }
  [[nodiscard]] Sends flush() const noexcept { return {pending(), {}}; }
  // After the sends write() or flush() asked for went out.
  void sent() noexcept { bytes_.clear(); }
  // A send failed: the stream may hold part of the bytes, so nothing can be
  // retried; keep the error for every later call, drop what was buffered.
  std::error_code fail(std::error_code error) noexcept {
    error_ = error;
    bytes_.clear();
    return error;
  }

  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  [[nodiscard]] std::string_view pending() const noexcept { return bytes_; }
  [[nodiscard]] std::size_t threshold() const noexcept { return threshold_; }

 private:
  std::string bytes_;
  std::size_t threshold_;
  std::error_code error_;
};

}  // namespace duet::detail
