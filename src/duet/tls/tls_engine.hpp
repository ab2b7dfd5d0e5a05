// duet::TlsEngine — the TLS state machine of one connection, written once for
// both voices: ciphertext in, plaintext out, and what I/O it needs next.
//
// Contract
// - Sans-I/O: it never touches a socket. Each operation (handshake, read,
//   write, close) returns a Step. After every call the voice calls
//   return_input(), sends the output if there is some, then acts on the Step:
//   recv means "receive ciphertext, lend_input(bytes), and call the same
//   operation again"; done means the operation finished; closed means the peer
//   sent close_notify; failed means error()/error_message() say why.
// - Input is lent, not copied in: the voices receive into the loop's pooled
//   buffers (lent only once bytes arrive), lend them to the engine for one
//   operation, and give them back before waiting again; return_input() keeps
//   only the bytes OpenSSL did not read yet (the rest of a batch of records).
//   So an idle connection holds no input buffer of its own.
// - Memory is bounded: kept input is at most one pooled buffer's worth;
//   output grows only by what one call produced (write() takes at most
//   max_write plaintext bytes per call), and the voices keep queued() under
//   max_queued by asking next_flush() after every call (below).
// - Output is double-buffered: begin_send() moves what is pending into an
//   in-flight buffer that nothing appends to until end_send(), so a reader
//   that produces bytes (an alert, a TLS 1.3 KeyUpdate reply) while a
//   writer's send is in the kernel never moves the memory under it.
// - Who sends, and who waits: next_flush(party). While sending() is true,
//   the one sending takes the queue next (it loops until nothing is pending),
//   so the other leaves its bytes queued, but only up to its allowance; past
//   it, it waits on send_ended() (set at every end_send()). A writer's
//   allowance is 0: write() and close() return only once their ciphertext is
//   in a send, so a writer behind a reader whose send is stuck (a peer that
//   does not read but keeps the reader answering: renegotiation requests)
//   blocks like a TCP writer, instead of queueing without end. A reader's
//   by-products (alerts) may queue up to max_reader_queue before it waits.
// - One engine per connection, one thread; not copyable or movable (OpenSSL
//   holds a pointer to it).
//
//   duet::TlsEngine e(ctx, "example.com");
//   for (auto s = e.handshake();; s = e.handshake()) { send e.output(); if (s == Step::recv) recv...; }
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "duet/io/detail/event_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/tls/tls_context.hpp"

using SSL = struct ssl_st;

namespace duet {

// Where records are encrypted: in this process by OpenSSL (the only mode this
// build has; kernel TLS would add a value here and hand the keys to the socket).
enum class RecordLayer { userspace };

class TlsEngine {
 public:
  enum class Step { done, recv, closed, failed };
  static constexpr std::size_t max_plaintext = 16 * 1024;  // a record's payload: a recv buffer that fits any
  static constexpr std::size_t max_write = 64 * 1024;       // plaintext per write(): four records
  static constexpr std::size_t max_reader_queue = 64 * 1024;  // a reader's alerts queued behind a writer's send
  // What queued() stays under: a reader's allowance plus one call's output of
  // each party (a write's max_write plaintext in records, a read's answers to
  // the records of its input).
  static constexpr std::size_t max_queued = 256 * 1024;

  // reader: read() and handshake(); writer: write() and close().
  enum class Party { reader, writer };
  // send: begin_send() and send it; wait: on send_ended(), then ask again;
  // done: nothing to send, or the other party's running send takes it next.
  enum class Flush { done, send, wait };

  // server_name (client side): sent as SNI unless it is an IP address, and
  // the certificate must match it when the context verifies; empty: neither.
  TlsEngine(const TlsContext& context, std::string_view server_name = {});
  TlsEngine(const TlsEngine&) = delete;
  TlsEngine& operator=(const TlsEngine&) = delete;
  ~TlsEngine();

  Step handshake();
  Step read(std::span<char> out, std::size_t& n);
  Step write(std::span<const char> in, std::size_t& n);
  Step close();  // queues close_notify (does not wait for the peer's)

  // `bytes` must stay valid until return_input(), which the voice calls after the operation.
  void lend_input(std::string_view bytes) noexcept { lent_ = bytes; }
  void return_input();

  [[nodiscard]] bool has_output() const noexcept { return !pending_.empty(); }
  [[nodiscard]] bool sending() const noexcept { return !in_flight_.empty(); }
  [[nodiscard]] std::size_t queued() const noexcept { return pending_.size(); }
  [[nodiscard]] std::span<const char> begin_send() noexcept;
  void end_send() noexcept;
  [[nodiscard]] Flush next_flush(Party party) const noexcept;
  // A pulse, not a state: granted to those waiting at an end_send(), never set for later waiters.
  [[nodiscard]] detail::WaitCore& send_ended() noexcept { return send_ended_; }

  // The voices' shared bookkeeping around their TCP calls: after a failed
  // recv (EOF mid-record is unexpected_eof; a timeout or a stop leaves the
  // engine usable), after a send of begin_send()'s bytes (any failure leaves
  // a torn record, so it fails the engine), and the value a finished Step
  // stands for (closed is EOF).
  IoResult<void> recv_failed(std::error_code error);
  IoResult<void> after_send(IoResult<std::size_t> r);
  // After a wait on send_ended(): its failure (a timeout, a stop) is the
  // call's; a writer's bytes are queued then and would go out after it
  // reported failure, so it fails the engine (and drops the queue), as a
  // send that stops mid-record does. A wait that ended on a failed engine (the other party's
  // send failed) gives the engine's error.
  IoResult<void> after_wait(IoResult<void> r, Party party);
  [[nodiscard]] IoResult<void> result(Step step) const noexcept;

  Step fail(std::error_code error, std::string message);
  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  [[nodiscard]] const std::string& error_message() const noexcept { return message_; }

  [[nodiscard]] bool handshake_done() const noexcept;
  [[nodiscard]] std::string_view alpn() const noexcept;
  [[nodiscard]] bool session_reused() const noexcept;
  [[nodiscard]] bool peer_certificate_verified() const noexcept;
  [[nodiscard]] std::string_view version() const noexcept;
  [[nodiscard]] RecordLayer record_layer() const noexcept { return RecordLayer::userspace; }
  [[nodiscard]] SSL* native_handle() const noexcept { return ssl_; }

 private:
  friend struct EngineBio;
  Step finish(int ret);

  SSL* ssl_ = nullptr;
  std::string server_name_;  // the client's session cache files new tickets under it
  std::string_view lent_;  // the voice's received bytes, during one operation
  std::string kept_;       // bytes OpenSSL has not read yet, read before lent_
  std::size_t kept_pos_ = 0;
  std::string pending_;    // ciphertext OpenSSL wrote, not yet sending
  std::string in_flight_;  // ciphertext handed to the kernel, stable until end_send()
  detail::EventCore send_ended_;
  std::error_code error_;
  std::string message_;
};

}  // namespace duet
