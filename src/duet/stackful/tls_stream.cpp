// fiber::TlsStream: the engine's Steps turned into blocking TCP calls. All TLS
// logic is in TlsEngine; this file is the stackful half of "move the bytes".
#include "duet/stackful/tls_stream.hpp"

#include <algorithm>
#include <chrono>

#include "duet/stackful/detail/sync_wait.hpp"

namespace duet::fiber {

using Step = TlsEngine::Step;
using Party = TlsEngine::Party;

TlsStream::TlsStream(TcpStream tcp, const TlsContext& context, std::string_view server_name)
    : tcp_(std::move(tcp)), engine_(std::make_unique<TlsEngine>(context, server_name)) {}

IoResult<TlsStream> TlsStream::connect(const SocketAddress& peer, const TlsContext& context,
                                       std::string_view server_name, Timeout timeout, std::stop_token token) {
  const duet::detail::Deadline deadline(timeout);
  auto tcp = TcpStream::connect(peer, timeout, token);
  if (!tcp) return tcp.error();
  TlsStream tls(std::move(*tcp), context, server_name);
  auto hs = tls.drive(Party::reader, [&] { return tls.engine_->handshake(); }, deadline, token);
  if (!hs) return hs.error();
  return tls;
}

// Sends what the engine has queued, or leaves it to another fiber of this
// stream that is sending (its flush loops until nothing is pending), or waits
// for that send to end when the engine says so (next_flush: how the queue
// stays bounded when the other's send is stuck).
IoResult<void> TlsStream::flush(TlsEngine::Party party, const duet::detail::Deadline& deadline,
                                const std::stop_token& token) {
  for (;;) {
    switch (engine_->next_flush(party)) {
      case TlsEngine::Flush::done:
        return {};
      case TlsEngine::Flush::wait: {
        const auto until = deadline.none() ? std::chrono::steady_clock::time_point::max() : deadline.at();
        const auto state = detail::wait_on(engine_->send_ended(), 1, until, token);
        if (auto r = engine_->after_wait(duet::detail::wait_result(state), party); !r) return r;
        break;
      }
      case TlsEngine::Flush::send: {
        auto out = engine_->begin_send();
        auto r = engine_->after_send(tcp_.send_all(out, deadline.none() ? Timeout{0} : deadline.left(), token));
        if (!r) return r;
        break;
      }
    }
  }
}

// Runs one engine operation to its end: after each Step, give the lent
// ciphertext back (its pooled buffer returns to the loop before any wait),
// flush the output, then receive if the engine asked for more, and call it again.
template <typename Op>
IoResult<void> TlsStream::drive(TlsEngine::Party party, Op op, const duet::detail::Deadline& deadline,
                                const std::stop_token& token) {
  RecvBuffer lent;
  for (;;) {
    const Step step = op();
    engine_->return_input();
    lent.release();
    auto flushed = flush(party, deadline, token);
    if (step != Step::recv) return step == Step::failed || flushed ? engine_->result(step) : flushed;
    if (!flushed) return flushed;
    auto in = tcp_.recv_pooled(deadline.none() ? Timeout{0} : deadline.left(), token);
    if (!in) return engine_->recv_failed(in.error());
    lent = std::move(*in);
    engine_->lend_input(lent.bytes());
  }
}

IoResult<void> TlsStream::handshake(Timeout timeout, std::stop_token token) {
  return drive(Party::reader, [this] { return engine_->handshake(); }, duet::detail::Deadline(timeout), token);
}

IoResult<std::size_t> TlsStream::recv(std::span<char> buf, Timeout timeout, std::stop_token token) {
  std::size_t n = 0;
  if (buf.empty()) return n;
  auto r = drive(Party::reader, [&] { return engine_->read(buf, n); }, duet::detail::Deadline(timeout), token);
  if (!r) return r.error();
  return n;
}

IoResult<std::size_t> TlsStream::send(std::span<const char> buf, Timeout timeout, std::stop_token token) {
  std::size_t n = 0;
  auto r = drive(Party::writer, [&] { return engine_->write(buf, n); }, duet::detail::Deadline(timeout), token);
  if (!r) return r.error();
  return n;
}

IoResult<std::size_t> TlsStream::send_all(std::span<const char> buf, Timeout timeout, std::stop_token token) {
  const duet::detail::Deadline deadline(timeout);
  std::size_t total = 0;
  while (total < buf.size()) {  // max_write per round: the queued ciphertext stays bounded
    std::size_t n = 0;
    auto r = drive(Party::writer, [&] { return engine_->write(buf.subspan(total), n); }, deadline, token);
    if (!r) return r.error();
    total += n;
  }
  return total;
}

IoResult<void> TlsStream::shutdown(Timeout timeout, std::stop_token token) {
  auto closed = drive(Party::writer, [this] { return engine_->close(); }, duet::detail::Deadline(timeout), token);
  if (!closed) return closed;
  return tcp_.shutdown(SHUT_WR);
}

}  // namespace duet::fiber
