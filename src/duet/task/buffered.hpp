// duet::BufferedReader, duet::BufferedWriter — lines, delimited messages and
// coalesced writes over any stackless stream (TcpStream, UnixStream, TlsStream).
//
// Contract
// - Each holds a reference to its stream, which must outlive it; it owns its
//   buffer; neither copyable nor movable (a read in flight points at it,
//   views point into it). The loop's thread only. One read (and, on a writer, one write or
//   flush) in flight at a time; a reader and a writer may share one stream.
// - Reads answer IoResult<std::string_view>, a view into the reader's buffer:
//   valid until the next read on that reader (copy it to keep it). When the
//   buffer already holds the answer, co_await returns it at once: no copy, no
//   allocation, no coroutine frame. Otherwise a Task receives until it can.
// - Why the reader's own buffer and not the loop's pooled recv buffers
//   (io/recv_buffer.hpp): a view must outlive the call, and a pooled buffer held
//   that long (while the caller answers a slow peer) would starve every other
//   pooled recv of the loop; a line split across two receives would have to be
//   copied out of them anyway. Here the kernel writes right after the partial
//   line, so nothing is ever stitched. The cost: a waiting reader keeps its
//   buffer (`capacity`, 8 KiB by default); with many idle connections and
//   little parsing, recv_pooled is the leaner tool.
// - read_until(delim, max) includes the delimiter; read_line(max) strips "\n"
//   or "\r\n". Past the maximum: std::errc::message_size, nothing consumed (the
//   reader stays usable: buffered() shows the bytes, consume() drops them).
//   EOF before the answer: io_errc::eof (r.eof()), and the bytes received so far
//   stay in buffered(): empty when the peer closed between messages.
// - read_exactly(n), peek(n) (not consumed) and the buffer grow to n bytes.
//   read_some() returns what is buffered, or one receive's worth. To go raw,
//   take buffered(), consume() it, then use stream().
// - Stop tokens and timeouts as on the stream's own calls: an already stopped
//   token fails at once (operation_canceled); a timeout, given to the overloads
//   taking a duration (as TlsStream's: a read may be several receives, so
//   with_timeout cannot wrap it), bounds the whole call (std::errc::timed_out). A failed or cancelled read loses
//   nothing: the bytes stay buffered for the next one.
// - The writer coalesces: write() copies into its buffer and sends when the
//   buffer reaches `threshold` (a write of at least the threshold is sent from
//   the caller's memory, after what was buffered). flush() sends the rest. An
//   error surfaces on the write or flush that met it and sticks (the stream may
//   hold part of the bytes: nothing is retried). The destructor does NOT flush:
//   unflushed bytes are dropped (pending() says how many); flush before.
//
//   duet::BufferedReader in(conn);
//   duet::BufferedWriter out(conn);
//   while (auto line = co_await in.read_line(4096)) {
//     if (!co_await out.write(*line) || !co_await out.write("\n")) break;
//   }
//   (void)co_await out.flush();
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <utility>

#include "duet/io/detail/buffered_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/task/detail/buffered_awaiter.hpp"
#include "duet/task/detail/recv_some_awaiter.hpp"
#include "duet/task/task.hpp"
#include "duet/task/with_timeout.hpp"
#include "duet/tls/detail/deadline.hpp"

namespace duet {

template <typename Stream>
  requires detail::TaskRecvStream<Stream>
class BufferedReader {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none
  using Awaiter = detail::BufferedAwaiter<std::string_view>;
  static constexpr std::size_t default_capacity = 8 * 1024;
  static constexpr std::size_t default_max_length = 64 * 1024;

  explicit BufferedReader(Stream& stream, std::size_t capacity = default_capacity) noexcept
      : stream_(&stream), buffer_(capacity) {}
  BufferedReader(const BufferedReader&) = delete;
  BufferedReader& operator=(const BufferedReader&) = delete;
  ~BufferedReader() = default;

  Awaiter read_until(char delim, std::size_t max_length = default_max_length, std::stop_token token = {}) {
    return read(detail::ReadRequest::until(delim, max_length), Timeout{0}, std::move(token));
  }
  Awaiter read_until(char delim, std::size_t max_length, Timeout timeout, std::stop_token token = {}) {
    return read(detail::ReadRequest::until(delim, max_length), timeout, std::move(token));
  }
  // delim must outlive the call (a literal, or any argument inside the co_await); empty: invalid_argument.
  Awaiter read_until(std::string_view delim, std::size_t max_length = default_max_length,
                     std::stop_token token = {}) {
    return read(detail::ReadRequest::until(delim, max_length), Timeout{0}, std::move(token));
  }
  Awaiter read_until(std::string_view delim, std::size_t max_length, Timeout timeout, std::stop_token token = {}) {
    return read(detail::ReadRequest::until(delim, max_length), timeout, std::move(token));
  }
  Awaiter read_line(std::size_t max_length, std::stop_token token = {}) {
    return read(detail::ReadRequest::line(max_length), Timeout{0}, std::move(token));
  }
  Awaiter read_line(std::size_t max_length, Timeout timeout, std::stop_token token = {}) {
    return read(detail::ReadRequest::line(max_length), timeout, std::move(token));
  }
  Awaiter read_exactly(std::size_t n, std::stop_token token = {}) {
    return read(detail::ReadRequest::exactly(n), Timeout{0}, std::move(token));
  }
  Awaiter read_exactly(std::size_t n, Timeout timeout, std::stop_token token = {}) {
    return read(detail::ReadRequest::exactly(n), timeout, std::move(token));
  }
  Awaiter peek(std::size_t n, std::stop_token token = {}) {
    return read(detail::ReadRequest::peek(n), Timeout{0}, std::move(token));
  }
  Awaiter peek(std::size_t n, Timeout timeout, std::stop_token token = {}) {
    return read(detail::ReadRequest::peek(n), timeout, std::move(token));
  }
  // Without a timeout over a plain socket (the echo server's loop): one recv
  // awaited in place, no Task (task/detail/recv_some_awaiter.hpp).
  auto read_some(std::stop_token token = {}) {
    if constexpr (detail::RecvTakesTimeout<Stream>) {
      return read(detail::ReadRequest::some(), Timeout{0}, std::move(token));
    } else {
      using Some = detail::RecvSomeAwaiter<Stream>;
      if (token.stop_requested()) return Some(std::make_error_code(std::errc::operation_canceled));
      detail::ReadRequest request = detail::ReadRequest::some();
      if (auto done = buffer_.try_complete(request)) return Some(*done);
      return Some(*stream_, buffer_, std::move(token));
    }
  }
  Awaiter read_some(Timeout timeout, std::stop_token token = {}) {
    return read(detail::ReadRequest::some(), timeout, std::move(token));
  }

  // What is received and not yet consumed (valid until the next read).
  [[nodiscard]] std::string_view buffered() const noexcept { return buffer_.buffered(); }
  void consume(std::size_t n) noexcept { buffer_.consume(n); }
  [[nodiscard]] Stream& stream() const noexcept { return *stream_; }

 private:
  Awaiter read(detail::ReadRequest request, Timeout timeout, std::stop_token token) {
    if (token.stop_requested()) return Awaiter(std::make_error_code(std::errc::operation_canceled));
    if (auto done = buffer_.try_complete(request)) return Awaiter(*done);
    return Awaiter(fill(request, timeout, std::move(token)));
  }

  // Receives until the buffer answers the request (or the stream fails).
  Task<IoResult<std::string_view>> fill(detail::ReadRequest request, Timeout timeout, std::stop_token token) {
    const detail::Deadline deadline(timeout);
    for (;;) {
      const std::span<char> space = buffer_.recv_space(request);
      IoResult<std::size_t> got = std::error_code{};
      if constexpr (detail::RecvTakesTimeout<Stream>) {
        got = co_await stream_->recv(space, deadline.none() ? Timeout{0} : deadline.left(), token);
      } else if (deadline.none()) {
        got = co_await stream_->recv(space, token);
      } else {
        got = co_await with_timeout(stream_->recv(space, token), deadline.left());
      }
      if (!got) co_return got.error();
      buffer_.commit(*got);
      if (auto done = buffer_.try_complete(request)) co_return *done;
    }
  }

  Stream* stream_;
  detail::ReadBuffer buffer_;
};

template <typename Stream>
  requires detail::TaskSendStream<Stream>
class BufferedWriter {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none
  using Awaiter = detail::BufferedAwaiter<void>;
  static constexpr std::size_t default_threshold = 16 * 1024;

  explicit BufferedWriter(Stream& stream, std::size_t threshold = default_threshold) noexcept
      : stream_(&stream), buffer_(threshold) {}
  BufferedWriter(const BufferedWriter&) = delete;
  BufferedWriter& operator=(const BufferedWriter&) = delete;
  ~BufferedWriter() = default;  // does not flush: pending() bytes are dropped

  // data must outlive the call (any argument inside the co_await does).
  Awaiter write(std::string_view data, std::stop_token token = {}) { return write(data, Timeout{0}, std::move(token)); }
  Awaiter write(std::string_view data, Timeout timeout, std::stop_token token = {}) {
    if (auto early = refuse(token)) return Awaiter(*early);
    return send(buffer_.write(data), timeout, std::move(token));
  }
  Awaiter flush(std::stop_token token = {}) { return flush(Timeout{0}, std::move(token)); }
  Awaiter flush(Timeout timeout, std::stop_token token = {}) {
    if (auto early = refuse(token)) return Awaiter(*early);
    return send(buffer_.flush(), timeout, std::move(token));
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
  Awaiter send(detail::WriteBuffer::Sends sends, Timeout timeout, std::stop_token token) {
    if (sends.empty()) return Awaiter(IoResult<void>());
    return Awaiter(send_all(sends, timeout, std::move(token)));
  }

  Task<IoResult<void>> send_all(detail::WriteBuffer::Sends sends, Timeout timeout, std::stop_token token) {
    const detail::Deadline deadline(timeout);
    const std::string_view chunks[] = {sends.buffered, sends.direct};
    for (const std::string_view chunk : chunks) {
      if (chunk.empty()) continue;
      IoResult<std::size_t> sent = std::error_code{};
      if constexpr (detail::SendTakesTimeout<Stream>) {
        sent = co_await stream_->send_all(chunk, deadline.none() ? Timeout{0} : deadline.left(), token);
      } else if (deadline.none()) {
        sent = co_await stream_->send_all(chunk, token);
      } else {
        sent = co_await with_timeout(stream_->send_all(chunk, token), deadline.left());
      }
      if (!sent) co_return buffer_.fail(sent.error());
    }
    buffer_.sent();
    co_return IoResult<void>();
  }

  Stream* stream_;
  detail::WriteBuffer buffer_;
};

}  // namespace duet
