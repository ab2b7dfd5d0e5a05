// The KV server's driver in the stackless voice (Task<T>).
// Everything but the loops below lives in the sans-I/O core, ServerRuntime and
// (--threads N > 1) ShardRuntime.
#include <chrono>
#include <optional>
#include <memory>
#include <span>
#include <stop_token>
#include <string_view>
#include <type_traits>

#include "kv/aof/aof_wait_task.hpp"
#include "kv/session_signal.hpp"
#include "kv/drivers.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"
#include "kv/shard_runtime.hpp"
#include "duet/task/event.hpp"
#include "duet/task/on_shard.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/tls_stream.hpp"
#include "duet/task/with_timeout.hpp"

namespace {

using namespace duet;
using kv::ServerRuntime;

// Sends the replies once their writes are logged (AOF group commit). A
// coroutine of its own on purpose: its awaiters live in a frame that exists
// only while replies go out, so an idle connection's frame holds just the
// session and one pooled recv (see docs/BENCHMARKS.md, memory per connection).
// The price: one ~460-byte frame from malloc's thread cache per flush (tens
// of ns; once per batch when pipelined) against ~6 µs of kernel work per
// request at pipeline 1.
template <typename Stream>
Task<bool> flush(ServerRuntime& rt, Stream& conn, kv::Session& session, std::stop_token stop) {
  const auto out = session.output();
  co_await kv::aof_durable(rt.durability());
  if (!co_await conn.send_all(out, std::move(stop))) co_return false;
  session.consume_output(out.size());
  co_return true;
}

EventLoop& loop_of(TcpStream& conn) { return conn.loop(); }
EventLoop& loop_of(TlsStream& conn) { return conn.tcp().loop(); }

// Waits until another shard reports to a session that cannot move without it
// (--threads N > 1); false when the server stops. A coroutine of its own, as
// flush: the event lives only while a connection waits.
Task<bool> wait_shards(EventLoop& loop, kv::Session& session, std::stop_token stop) {
  Event reported(loop);
  kv::ShardSignal<Event> signal(session, reported);
  co_return (co_await reported.wait(std::move(stop))).ok();
}

// What one recv brought: a pooled buffer (TCP), or plaintext decrypted into
// the connection's own buffer (TLS has no pooled recv).
template <typename Stream>
using Received = std::conditional_t<std::is_same_v<Stream, TlsStream>, IoResult<std::size_t>, IoResult<RecvBuffer>>;
std::string_view bytes_of(IoResult<RecvBuffer>& in, std::span<char>) { return in->bytes(); }
std::string_view bytes_of(IoResult<std::size_t>& in, std::span<char> plain) { return {plain.data(), *in}; }

// One recv for a subscriber, beside its sends: the bytes (or EOF, an error)
// wait in `in` for the connection's loop, which `wake` calls.
template <typename Stream>
Task<void> read_once(Stream& conn, std::optional<Received<Stream>>& in, std::span<char> plain, Event& wake,
                     std::stop_token stop) {
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    in.emplace(co_await conn.recv(plain, std::move(stop)));
  } else {
    in.emplace(co_await conn.recv_pooled(std::move(stop)));
  }
  wake.set();
}

// Waits for the event, and for a blocked client's timeout (BLPOP ...) too:
// the session answers it then. False when the server stops.
Task<bool> wait_event(Event& wake, kv::Session& session, std::stop_token stop) {
  const std::int64_t left = session.block_wait_ms();
  if (left < 0) co_return (co_await wake.wait(std::move(stop))).ok();
  auto woken = co_await with_timeout(wake.wait(std::move(stop)), std::chrono::milliseconds(left));
  if (woken.ok()) co_return true;
  if (woken.error() != std::errc::timed_out) co_return false;
  session.timed_out();
  co_return true;
}

// A connection that has subscribed, or blocked once (BLPOP ...), spends the
// rest of its life here; others never get this frame, its event or the
// second operation. It waits on one event that a push or a block's answer
// (PushSignal) and its recv (read_once) set, so a message costs a wake-up
// and a send: the recv stays pending across pushes, never cancelled and
// re-armed — a blocked client's bytes are kept, and its EOF seen, while it
// waits — and the loop alone runs commands and sends. A TlsStream allows
// one recv and one send in flight at once, as here.
template <typename Stream>
Task<void> serve_subscriber(ServerRuntime& rt, Stream& conn, kv::Session& session, std::span<char> plain,
                            std::stop_token stop) {
  Event wake(loop_of(conn));
  kv::PushSignal<Event> signal(session, wake);
  TaskScope reader;  // holds the pending recv; joined before the frame goes
  std::stop_callback link(stop, [&reader] { reader.request_stop(); });
  std::optional<Received<Stream>> in;
  bool reading = false;
  for (;;) {
    session.collect_pushes();  // only here, between sends: a push never moves bytes being sent
    if (!session.output().empty() && !co_await flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.blocked() && !session.wants_input()) {
      if (session.waiting_on_shards() && !co_await wait_shards(loop_of(conn), session, stop)) break;
      session.process();
      continue;
    }
    if (in) {
      if (!*in) break;  // EOF, an error, or the server stops
      session.feed(bytes_of(*in, plain));  // kept, not run, while blocked
      in.reset();  // the buffer goes back to the loop
      reading = false;
      continue;
    }
    if (!reading) {
      reading = true;
      reader.spawn(read_once(conn, in, plain, wake, reader.stop_token()));
    }
    wake.reset();
    if (in || session.has_pushes()) continue;            // came in meanwhile
    if (!co_await wait_event(wake, session, stop)) break;  // the server stops
  }
  reader.request_stop();
  co_await reader.join();
}

// The calling thread's part of the keyspace (--threads N > 1).
kv::KvShard& this_kv_shard(ServerRuntime& rt) { return rt.cluster().shard(this_shard()->id()); }

// One loop for both ports: Stream is TcpStream or TlsStream (whose recv
// decrypts into a buffer of the connection's own: TLS has no pooled recv).
// sharded (--threads N > 1): the session is on this thread's shard and may
// wait for others. A template parameter, so that with one thread the frame
// an idle connection keeps holds neither the shard nor that wait.
template <typename Stream, bool sharded = false>
Task<void> serve(ServerRuntime& rt, Stream conn, std::stop_token stop) {
  constexpr bool tls = std::is_same_v<Stream, TlsStream>;
  kv::Session session(sharded ? this_kv_shard(rt).state() : rt.state(), conn.native_handle(),
                      sharded ? &this_kv_shard(rt) : nullptr);
  // TLS only (a plain connection allocates nothing here). Left uninitialised:
  // a read touches only the pages its plaintext fills.
  std::unique_ptr<char[]> plain;
  if constexpr (tls) plain = std::make_unique_for_overwrite<char[]>(TlsEngine::max_plaintext);
  bool open = true;
  if constexpr (tls) {
    auto hs = co_await conn.handshake(ServerRuntime::tls_handshake_timeout, stop);
    if (!hs) rt.on_tls_error(hs.error(), conn.error_message());
    open = hs.ok();
  }
  while (open) {
    if (!session.output().empty() && !co_await flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (session.event_mode()) {  // subscribed, or blocked once (BLPOP ...): pushes and timeouts too
      co_await serve_subscriber(rt, conn, session, {plain.get(), tls ? TlsEngine::max_plaintext : 0}, stop);
      break;
    }
    if (!session.wants_input()) {  // over the output limit (drained), or replies due from other shards
      if constexpr (sharded) {
        if (session.waiting_on_shards() && !co_await wait_shards(loop_of(conn), session, stop)) break;
      }
      session.process();
      continue;
    }
    // The loop lends a buffer only once bytes are there, and gets it back at
    // the end of this iteration: waiting connections hold none.
    if constexpr (tls) {
      auto n = co_await conn.recv({plain.get(), TlsEngine::max_plaintext}, stop);
      if (!n) break;
      session.feed({plain.get(), *n});
    } else {
      auto in = co_await conn.recv_pooled(stop);
      if (!in) break;
      session.feed(in->bytes());
    }
  }
  // However the session ended (QUIT, EOF, an error, the server stopping), a
  // TLS one ends with close_notify: a bare FIN is what a truncation attack
  // looks like to the client. Without the stop token (it may be why we are
  // here) and within a bound, as Redis's one non-blocking SSL_shutdown: a
  // client that never reads cannot hold the connection. A failed stream (or a
  // socket the server shut down) sends nothing.
  if constexpr (tls) {
    if (open) (void)co_await conn.shutdown(ServerRuntime::tls_close_timeout);
  }
  rt.on_disconnect();
}

// tls: the listener is the TLS port's; its connections are wrapped in TlsStream.
// sharded: as serve's (shard 0 with --threads N > 1).
template <bool sharded = false>
Task<void> accept_loop(ServerRuntime& rt, EventLoop& loop, TcpListener& listener, TaskScope& scope, bool tls) {
  while (!scope.stop_token().stop_requested()) {
    auto conn = co_await listener.accept(scope.stop_token());
    if (!conn) {
      co_await sleep_for(loop, rt.on_accept_error(conn.error(), listener.native_handle()), scope.stop_token());
    } else if (rt.admit(conn->native_handle())) {
      if (tls) {
        scope.spawn(serve<TlsStream, sharded>(rt, TlsStream(std::move(*conn), *rt.tls_context()), scope.stop_token()));
      } else {
        scope.spawn(serve<TcpStream, sharded>(rt, std::move(*conn), scope.stop_token()));
      }
    }
  }
}

Task<void> ticker(ServerRuntime& rt, EventLoop& loop, TaskScope& scope) {
  while (!rt.tick()) co_await sleep_for(loop, rt.tick_interval());
  scope.request_stop();  // cancels accept and every connection's pending I/O
}

Task<void> run_server(ServerRuntime& rt, EventLoop& loop, std::optional<TcpListener>& listener,
                      std::optional<TcpListener>& tls_listener, std::optional<UnixListener>& unix_listener) {
  TaskScope scope;
  scope.spawn(ticker(rt, loop, scope));
  if (listener) scope.spawn(accept_loop(rt, loop, *listener, scope, false));
  if (tls_listener) scope.spawn(accept_loop(rt, loop, *tls_listener, scope, true));
  if (unix_listener) scope.spawn(accept_loop(rt, loop, *unix_listener, scope, false));  // --unixsocket
  co_await scope.join();
}

// --threads N > 1 ------------------------------------------------------------

// Shard i's cron; a signal or a SHUTDOWN seen here stops every shard.
Task<void> shard_ticker(ServerRuntime& rt, kv::ShardRuntime& shards, std::size_t i, std::stop_token stop) {
  EventLoop& loop = this_shard()->loop();
  while (!rt.tick(i) && !stop.stop_requested()) co_await sleep_for(loop, rt.tick_interval(i), stop);
  shards.stop();
}

Task<void> refused() { co_return; }  // the stream, left in the handler, closes

// Shard i's part of the server, on its thread: its share of the port's
// connections, its cron, and on shard 0 the TLS port and the Unix socket.
Task<void> run_shard(ServerRuntime& rt, kv::ShardRuntime& shards, std::size_t i) {
  Shard& shard = *this_shard();
  EventLoop& loop = shard.loop();
  std::optional<TcpListener> tls_listener;
  std::optional<UnixListener> unix_listener;
  TaskScope scope;
  std::stop_callback link(shard.stop_token(), [&scope] { scope.request_stop(); });
  scope.spawn(shard_ticker(rt, shards, i, shard.stop_token()));
  if (UniqueFd fd = i == 0 ? shards.take_tls_listener() : UniqueFd()) {
    tls_listener.emplace(TcpListener::adopt(loop, std::move(fd)));
    scope.spawn(accept_loop<true>(rt, loop, *tls_listener, scope, true));
  }
  if (UniqueFd fd = i == 0 ? shards.take_unix_listener() : UniqueFd()) {
    unix_listener.emplace(UnixListener::adopt(loop, std::move(fd)));
    scope.spawn(accept_loop<true>(rt, loop, *unix_listener, scope, false));
  }
  if (ConnectionSpreader* spreader = shards.spreader()) {
    auto handler = [&rt, i](TcpStream conn, std::stop_token stop) {
      if (!rt.admit(conn.native_handle(), i)) return refused();
      return serve<TcpStream, true>(rt, std::move(conn), std::move(stop));
    };
    auto on_error = [&rt, i](std::error_code e, int fd) { return rt.on_accept_error(e, fd, i); };
    scope.spawn(serve_shard(*spreader, handler, on_error));
  }
  co_await scope.join();
  // The append-only file: every other shard's last records reach shard 0
  // before it writes and fsyncs the rest.
  if (i != 0) {
    rt.stop_shard_aof(i);
  } else {
    while (!rt.feeds_stopped()) co_await sleep_for(loop, std::chrono::milliseconds(1));
    rt.stop_aof();
    rt.serving_ended();
  }
}

int run_sharded(ServerRuntime& rt) {
  kv::ShardRuntime shards(rt, loop_runner());
  shards.run([&] {
    rt.start_sharded_aof(shards.shard(0).loop(), [&] {
      for (std::size_t i = 0; i < shards.size(); ++i) spawn_on(shards.shard(i), [&, i] { return run_shard(rt, shards, i); });
    });
  });
  rt.on_stopped();
  return 0;
}

}  // namespace

namespace duet::kv {

int run_stackless_driver(ServerRuntime& rt) {
  if (rt.threads() > 1) return run_sharded(rt);
  std::optional<EventLoop> loop;
  rt.open_backend([&](Backend b) { loop.emplace(b); });
  std::optional<TcpListener> listener;
  std::optional<TcpListener> tls_listener;
  const auto bind_into = [&loop](std::optional<TcpListener>& l) {
    return [&loop, &l](const SocketAddress& a, const ListenOptions& o) { l.emplace(TcpListener::bind(*loop, a, o)); };
  };
  if (rt.plain_port()) rt.bind_listener(bind_into(listener));
  if (rt.tls_context()) rt.bind_tls_listener(bind_into(tls_listener));
  std::optional<UnixListener> unix_listener;
  rt.bind_unix_listener([&](const SocketAddress& a, const ListenOptions& o) {
    unix_listener.emplace(UnixListener::bind(*loop, a, o));
  });
  rt.start_aof(*loop);
  if (listener) rt.on_listening(listener->local_address());
  if (tls_listener) rt.on_listening_tls(tls_listener->local_address());
  run_until_complete(*loop, run_server(rt, *loop, listener, tls_listener, unix_listener));
  rt.on_stopped();
  return 0;
}

}  // namespace duet::kv
