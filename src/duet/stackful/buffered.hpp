// duet::fiber::BufferedReader, duet::fiber::BufferedWriter — lines, delimited
// messages and coalesced writes over any stackful stream (fiber::TcpStream,
// fiber::UnixStream, fiber::TlsStream): plain blocking calls.
//
// Contract
// - The same calls, answers and rules as the stackless duet::BufferedReader and
//   duet::BufferedWriter (task/buffered.hpp, which explains them and why the
//   reader receives into its own buffer rather than the loop's pooled ones);
//   both are thin drivers of one core, io/detail/buffered_core.hpp.
// - Reads return IoResult<std::string_view> into the reader's buffer, valid
//   until the next read on that reader; an answer already buffered returns
//   without blocking, copying or allocating. read_until(delim, max) keeps the
//   delimiter, read_line(max) strips "\n" / "\r\n"; past the maximum:
//   std::errc::message_size, nothing consumed. EOF before the answer: io_errc::eof,
//   the partial bytes stay in buffered(). A failed read loses nothing.
// - Each call takes an optional std::stop_token (already stopped: fails at once
//   with operation_canceled); the overloads with a duration bound the whole call
//   (std::errc::timed_out). A call that waits blocks only its fiber, and must be
//   made on a fiber of the stream's scheduler.
// - The writer's destructor does NOT flush: unflushed bytes are dropped
//   (pending() says how many). Errors stick: after a failed send every call
//   returns that error.
// - Each holds a reference to its stream (which must outlive it) and owns its
//   buffer; neither copyable nor movable; the scheduler's thread only; one read, and one write or flush, at a time.
//
//   duet::fiber::BufferedReader in(conn);
//   duet::fiber::BufferedWriter out(conn);
//   while (auto line = in.read_line(4096, 30s)) {
//     if (!out.write(*line) || !out.write("\n")) break;
//   }
//   (void)out.flush();
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <stop_token>
#include <string_view>
#include <system_error>

#include "duet/io/detail/buffered_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/tls/detail/deadline.hpp"

namespace duet::fiber {

namespace detail {
template <typename S>
concept RecvStream = requires(S& s, std::span<char> buf, std::chrono::nanoseconds t, std::stop_token token) {
  { s.recv(buf, t, token) } -> std::same_as<IoResult<std::size_t>>;
};
template <typename S>
concept SendStream = requires(S& s, std::span<const char> buf, std::chrono::nanoseconds t, std::stop_token token) {
  { s.send_all(buf, t, token) } -> std::same_as<IoResult<std::size_t>>;
};
// What is left of a deadline for the next call (0 = none, as the streams take it).
inline std::chrono::nanoseconds left(const duet::detail::Deadline& deadline) noexcept {
  return deadline.none() ? std::chrono::nanoseconds{0} : deadline.left();
}
}  // namespace detail

template <typename Stream>
  requires detail::RecvStream<Stream>
class BufferedReader {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none
  using Result = IoResult<std::string_view>;
  static constexpr std::size_t default_capacity = 8 * 1024;
  static constexpr std::size_t default_max_length = 64 * 1024;

  explicit BufferedReader(Stream& stream, std::size_t capacity = default_capacity) noexcept
      : stream_(&stream), buffer_(capacity) {}
  BufferedReader(const BufferedReader&) = delete;
  BufferedReader& operator=(const BufferedReader&) = delete;
  ~BufferedReader() = default;

  Result read_until(char delim, std::size_t max_length = default_max_length, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::until(delim, max_length), Timeout{0}, token);
  }
  Result read_until(char delim, std::size_t max_length, Timeout timeout, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::until(delim, max_length), timeout, token);
  }
  // An empty delim fails with std::errc::invalid_argument.
  Result read_until(std::string_view delim, std::size_t max_length = default_max_length, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::until(delim, max_length), Timeout{0}, token);
  }
  Result read_until(std::string_view delim, std::size_t max_length, Timeout timeout, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::until(delim, max_length), timeout, token);
  }
  Result read_line(std::size_t max_length, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::line(max_length), Timeout{0}, token);
  }
  Result read_line(std::size_t max_length, Timeout timeout, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::line(max_length), timeout, token);
  }
  Result read_exactly(std::size_t n, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::exactly(n), Timeout{0}, token);
  }
  Result read_exactly(std::size_t n, Timeout timeout, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::exactly(n), timeout, token);
  }
  Result peek(std::size_t n, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::peek(n), Timeout{0}, token);
  }
  Result peek(std::size_t n, Timeout timeout, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::peek(n), timeout, token);
  }
  Result read_some(std::stop_token token = {}) { return read(duet::detail::ReadRequest::some(), Timeout{0}, token); }
  Result read_some(Timeout timeout, std::stop_token token = {}) {
    return read(duet::detail::ReadRequest::some(), timeout, token);
  }

  // What is received and not yet consumed (valid until the next read).
  [[nodiscard]] std::string_view buffered() const noexcept { return buffer_.buffered(); }
  void consume(std::size_t n) noexcept { buffer_.consume(n); }
  [[nodiscard]] Stream& stream() const noexcept { return *stream_; }

 private:
  Result read(duet::detail::ReadRequest request, Timeout timeout, const std::stop_token& token) {
    if (token.stop_requested()) return std::make_error_code(std::errc::operation_canceled);
    if (auto done = buffer_.try_complete(request)) return *done;
    const duet::detail::Deadline deadline(timeout);
    for (;;) {
      auto got = stream_->recv(buffer_.recv_space(request), detail::left(deadline), token);
      if (!got) return got.error();
      buffer_.commit(*got);
      if (auto done = buffer_.try_complete(request)) return *done;
    }
  }

  Stream* stream_;
  duet::detail::ReadBuffer buffer_;
};

template <typename Stream>
  requires detail::SendStream<Stream>
class BufferedWriter {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none
  static constexpr std::size_t default_threshold = 16 * 1024;

  explicit BufferedWriter(Stream& stream, std::size_t threshold = default_threshold) noexcept
      : stream_(&stream), buffer_(threshold) {}
  BufferedWriter(const BufferedWriter&) = delete;
  BufferedWriter& operator=(const BufferedWriter&) = delete;
  ~BufferedWriter() = default;  // does not flush: pending() bytes are dropped

  IoResult<void> write(std::string_view data, std::stop_token token = {}) {
    return write(data, Timeout{0}, token);
  }
  IoResult<void> write(std::string_view data, Timeout timeout, std::stop_token token = {}) {
    if (auto early = refuse(token)) return *early;
    return send(buffer_.write(data), timeout, token);
  }
  IoResult<void> flush(std::stop_token token = {}) { return flush(Timeout{0}, token); }
  IoResult<void> flush(Timeout timeout, std::stop_token token = {}) {
    if (auto early = refuse(token)) return *early;
    return send(buffer_.flush(), timeout, token);
  }

  // Bytes written and not yet sent; dropped by the destructor.
  [[nodiscard]] std::size_t pending() const noexcept { return buffer_.pending().size(); }
  [[nodiscard]] std::size_t threshold() const noexcept { return buffer_.threshold(); }
  [[nodiscard]] Stream& stream() const noexcept { return *stream_; }

 private:
  // A failed writer repeats its error; an already stopped token writes nothing.
  std::optional<IoResult<void>> refuse(const std::stop_token& token) const noexcept {
    if (buffer_.error()) return IoResult<void>(buffer_.error());
    if (token.stop_requested()) return IoResult<void>(std::make_error_code(std::errc::operation_canceled));
    return std::nullopt;
  }

  IoResult<void> send(duet::detail::WriteBuffer::Sends sends, Timeout timeout, const std::stop_token& token) {
    if (sends.empty()) return {};
    const duet::detail::Deadline deadline(timeout);
    for (const std::string_view chunk : {sends.buffered, sends.direct}) {
      if (chunk.empty()) continue;
      if (auto sent = stream_->send_all(chunk, detail::left(deadline), token); !sent) return buffer_.fail(sent.error());
    }
    buffer_.sent();
    return {};
  }

  Stream* stream_;
  duet::detail::WriteBuffer buffer_;
};

}  // namespace duet::fiber
