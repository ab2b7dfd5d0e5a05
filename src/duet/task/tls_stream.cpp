// TlsStream (stackless): the engine's Steps turned into awaited TCP calls. All
// TLS logic is in TlsEngine; this file is the stackless half of "move the bytes".
#include "duet/task/tls_stream.hpp"

#include "duet/task/detail/sync_awaiter.hpp"

namespace duet {

using Step = TlsEngine::Step;
using Party = TlsEngine::Party;

TlsStream::TlsStream(TcpStream tcp, const TlsContext& context, std::string_view server_name)
    : tcp_(std::move(tcp)), engine_(std::make_unique<TlsEngine>(context, server_name)) {}

Task<IoResult<TlsStream>> TlsStream::connect(EventLoop& loop, SocketAddress peer, const TlsContext& context,
                                             std::string server_name, Timeout timeout, std::stop_token token) {
  const detail::Deadline deadline(timeout);
  auto connecting = TcpStream::connect(loop, peer, token);
  if (!deadline.none()) connecting.set_timeout(deadline.left());
  auto tcp = co_await connecting;
  if (!tcp) co_return tcp.error();
  TlsStream tls(std::move(*tcp), context, server_name);
  if (auto hs = co_await tls.drive(Party::reader, [&] { return tls.engine_->handshake(); }, deadline, token); !hs) {
    co_return hs.error();
  }
  co_return std::move(tls);
}

// Sends what the engine has queued, or leaves it to another coroutine of
// this stream that is sending (its flush loops until nothing is pending), or
// waits for that send to end when the engine says so (next_flush: how the
// queue stays bounded when the other's send is stuck).
Task<IoResult<void>> TlsStream::flush(TlsEngine::Party party, detail::Deadline deadline, std::stop_token token) {
  for (;;) {
    switch (engine_->next_flush(party)) {
      case TlsEngine::Flush::done:
        co_return IoResult<void>{};
      case TlsEngine::Flush::wait: {
        detail::WaitAwaiter ended(tcp_.loop(), engine_->send_ended(), 1, token);
        if (!deadline.none()) ended.set_timeout(deadline.left());
        if (auto r = engine_->after_wait(co_await ended, party); !r) co_return r;
        break;
      }
      case TlsEngine::Flush::send: {
        auto sending = tcp_.send_all(engine_->begin_send(), token);
        if (!deadline.none()) sending.set_timeout(deadline.left());
        if (auto r = engine_->after_send(co_await sending); !r) co_return r;
        break;
      }
    }
  }
}

// Runs one engine operation to its end: after each Step, give the lent
// ciphertext back (its pooled buffer returns to the loop before any wait),
// flush the output, then receive if the engine asked for more, and call it
// again. The flush is awaited only when it has work, so a read served from
// bytes already received costs no further frame.
template <typename Op>
Task<IoResult<void>> TlsStream::drive(TlsEngine::Party party, Op op, detail::Deadline deadline, std::stop_token token) {
  RecvBuffer lent;
  for (;;) {
    const Step step = op();
    engine_->return_input();
    lent.release();
    IoResult<void> flushed;
    if (engine_->next_flush(party) != TlsEngine::Flush::done) flushed = co_await flush(party, deadline, token);
    if (step != Step::recv) co_return step == Step::failed || flushed ? engine_->result(step) : flushed;
    if (!flushed) co_return flushed;
    auto receiving = tcp_.recv_pooled(token);
    if (!deadline.none()) receiving.set_timeout(deadline.left());
    auto in = co_await receiving;
    if (!in) co_return engine_->recv_failed(in.error());
    lent = std::move(*in);
    engine_->lend_input(lent.bytes());
  }
}

Task<IoResult<void>> TlsStream::handshake(Timeout timeout, std::stop_token token) {
  co_return co_await drive(Party::reader, [this] { return engine_->handshake(); }, detail::Deadline(timeout),
                           std::move(token));
}

Task<IoResult<std::size_t>> TlsStream::recv(std::span<char> buf, Timeout timeout, std::stop_token token) {
  std::size_t n = 0;
  if (buf.empty()) co_return n;
  auto r = co_await drive(Party::reader, [&] { return engine_->read(buf, n); }, detail::Deadline(timeout),
                          std::move(token));
  if (!r) co_return r.error();
  co_return n;
}

Task<IoResult<std::size_t>> TlsStream::send(std::span<const char> buf, Timeout timeout, std::stop_token token) {
  std::size_t n = 0;
  auto r = co_await drive(Party::writer, [&] { return engine_->write(buf, n); }, detail::Deadline(timeout),
                          std::move(token));
  if (!r) co_return r.error();
  co_return n;
}

Task<IoResult<std::size_t>> TlsStream::send_all(std::span<const char> buf, Timeout timeout, std::stop_token token) {
  const detail::Deadline deadline(timeout);
  std::size_t total = 0;
  while (total < buf.size()) {  // max_write per round: the queued ciphertext stays bounded
    std::size_t n = 0;
    auto r = co_await drive(Party::writer, [&] { return engine_->write(buf.subspan(total), n); }, deadline, token);
    if (!r) co_return r.error();
    total += n;
  }
  co_return total;
}

Task<IoResult<void>> TlsStream::shutdown(Timeout timeout, std::stop_token token) {
  auto closed = co_await drive(Party::writer, [this] { return engine_->close(); }, detail::Deadline(timeout), token);
  if (!closed) co_return closed;
  co_return tcp_.shutdown(SHUT_WR);
}

}  // namespace duet
