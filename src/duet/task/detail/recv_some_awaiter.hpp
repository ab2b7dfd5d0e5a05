// duet::detail::RecvSomeAwaiter<Stream> — what BufferedReader::read_some (no
// timeout, a stream whose recv is one awaiter: TcpStream, UnixStream) returns:
// the buffered bytes at once, or ONE recv straight into the reader's buffer,
// with the stream's own recv awaiter built inside this one. No Task frame: the
// echo server's per-request path (read_some, then send_all) costs what a plain
// recv does (bench: docs/BENCHMARKS.md, "Buffered reads on the echo path").
//
// Contract
// - Ready (bytes already buffered, a stopped token): await_ready is true.
// - Else await_suspend places stream.recv(space, token)'s awaiter in this
//   object's storage (guaranteed elision: the kernel's op never moves) and
//   suspends on it; await_resume commits what arrived and answers the request.
//   A failed recv answers its error and the buffer keeps what it had.
// - Neither copyable nor movable; await it once, in the co_await of the call.
//   Destroying the awaiting task mid-recv destroys the inner awaiter, which
//   cancels and reaps its op as any duet awaiter does.
//
//   auto bytes = co_await reader.read_some();   // one of these per request
#pragma once

#include <coroutine>
#include <cstddef>
#include <new>
#include <span>
#include <stop_token>
#include <string_view>
#include <type_traits>
#include <utility>

#include "duet/io/detail/buffered_core.hpp"
#include "duet/io/io_result.hpp"

namespace duet::detail {

template <typename Stream>
class [[nodiscard]] RecvSomeAwaiter {
  using Inner = decltype(std::declval<Stream&>().recv(std::declval<std::span<char>>(), std::declval<std::stop_token>()));

 public:
  explicit RecvSomeAwaiter(IoResult<std::string_view> ready) noexcept : ready_(ready) {}
  RecvSomeAwaiter(Stream& stream, ReadBuffer& buffer, std::stop_token token) noexcept
      : ready_(std::error_code{}), stream_(&stream), buffer_(&buffer), token_(std::move(token)) {}
  RecvSomeAwaiter(const RecvSomeAwaiter&) = delete;
  RecvSomeAwaiter& operator=(const RecvSomeAwaiter&) = delete;
  RecvSomeAwaiter(RecvSomeAwaiter&&) = delete;
  RecvSomeAwaiter& operator=(RecvSomeAwaiter&&) = delete;
  ~RecvSomeAwaiter() {
    if (started_) inner().~Inner();
  }

  [[nodiscard]] bool await_ready() const noexcept { return buffer_ == nullptr; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> waiter) {
    ::new (static_cast<void*>(storage_)) Inner(stream_->recv(buffer_->recv_space(ReadRequest::some()), token_));
    started_ = true;
    Inner& in = inner();
    if (in.await_ready()) return waiter;
    using Suspend = decltype(in.await_suspend(waiter));
    if constexpr (std::is_void_v<Suspend>) {
      in.await_suspend(waiter);
      return std::noop_coroutine();
    } else if constexpr (std::is_same_v<Suspend, bool>) {
      return in.await_suspend(waiter) ? std::noop_coroutine() : waiter;
    } else {
      return in.await_suspend(waiter);
    }
  }
  IoResult<std::string_view> await_resume() {
    if (buffer_ == nullptr) return ready_;
    IoResult<std::size_t> got = inner().await_resume();
    if (!got) return got.error();
    buffer_->commit(*got);
    ReadRequest request = ReadRequest::some();
    if (auto done = buffer_->try_complete(request)) return *done;  // any byte answers it
    return make_error_code(io_errc::eof);  // a successful recv has >= 1 byte (io/io_result.hpp)
  }

 private:
  Inner& inner() noexcept { return *std::launder(reinterpret_cast<Inner*>(storage_)); }

  IoResult<std::string_view> ready_;
  Stream* stream_ = nullptr;
  ReadBuffer* buffer_ = nullptr;  // null: ready_ is the answer
  std::stop_token token_;
  bool started_ = false;
  alignas(Inner) std::byte storage_[sizeof(Inner)];
};

}  // namespace duet::detail
