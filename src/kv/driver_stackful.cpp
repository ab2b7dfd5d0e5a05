// The KV server's driver in the stackful voice (fibers with
// plain blocking calls). Same core, same ServerRuntime (and, --threads N > 1,
// ShardRuntime) as duet-kv-stackless.
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string_view>
#include <type_traits>

#include "kv/aof/aof_wait_fiber.hpp"
#include "kv/session_signal.hpp"
#include "kv/drivers.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"
#include "kv/shard_runtime.hpp"
#include "duet/stackful/event.hpp"
#include "duet/stackful/on_shard.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/tls_stream.hpp"

namespace {

using namespace duet;
using kv::ServerRuntime;

// Sends the replies once their writes are logged (AOF group commit).
template <typename Stream>
bool flush(ServerRuntime& rt, Stream& conn, kv::Session& session, const std::stop_token& stop) {
  const auto out = session.output();
  kv::wait_durable(rt.durability());
  if (!conn.send_all(out, stop)) return false;
  session.consume_output(out.size());
  return true;
}

// Waits until another shard reports to a session that cannot move without it
// (--threads N > 1); false when the server stops. A call of its own, as in
// the stackless driver: the event lives only while a connection waits.
bool wait_shards(kv::Session& session, const std::stop_token& stop) {
  fiber::Event reported;
  kv::ShardSignal<fiber::Event> signal(session, reported);
  return reported.wait(stop).ok();
}

// What one recv brought: a pooled buffer (TCP), or plaintext decrypted into
// the connection's own buffer (TLS has no pooled recv).
template <typename Stream>
using Received = std::conditional_t<std::is_same_v<Stream, fiber::TlsStream>, IoResult<std::size_t>, IoResult<RecvBuffer>>;
std::string_view bytes_of(IoResult<RecvBuffer>& in, std::span<char>) { return in->bytes(); }
std::string_view bytes_of(IoResult<std::size_t>& in, std::span<char> plain) { return {plain.data(), *in}; }

// Out of stacks (vm.max_map_count) closes this connection, not the server.
template <typename F>
bool start_reader(fiber::Fiber<void>& reader, F&& body) {
  try {
    reader = fiber::spawn(std::forward<F>(body));
    return true;
  } catch (const std::system_error&) {
    return false;
  }
}

// Waits for the event, and for a blocked client's timeout (BLPOP ...) too:
// the session answers it then. False when the server stops.
bool wait_event(fiber::Event& wake, kv::Session& session, const std::stop_token& stop) {
  const std::int64_t left = session.block_wait_ms();
  if (left < 0) return wake.wait(stop).ok();
  auto woken = wake.wait_for(std::chrono::milliseconds(left), stop);
  if (woken.ok()) return true;
  if (woken.error() != std::errc::timed_out) return false;
  session.timed_out();
  return true;
}

// A connection that has subscribed, or blocked once (BLPOP ...), spends the
// rest of its life here; others never get this call, its event or the
// second fiber. It waits on one event that a push or a block's answer
// (PushSignal) and its recv (a reader fiber) set, so a message costs a
// wake-up and a send: the recv stays pending across pushes, never cancelled
// and re-armed — a blocked client's bytes are kept, and its EOF seen, while
// it waits — and this fiber alone runs commands and sends. A TlsStream
// allows one recv and one send in flight at once, as here.
template <typename Stream>
void serve_subscriber(ServerRuntime& rt, Stream& conn, kv::Session& session, std::span<char> plain,
                      const std::stop_token& stop) {
  fiber::Event wake;
  kv::PushSignal<fiber::Event> signal(session, wake);
  std::stop_source reader_stop;
  std::stop_callback link(stop, [&reader_stop] { reader_stop.request_stop(); });
  std::optional<Received<Stream>> in;
  fiber::Fiber<void> reader;  // holds the pending recv; joined before we return
  for (;;) {
    session.collect_pushes();  // only here, between sends: a push never moves bytes being sent
    if (!session.output().empty() && !flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.blocked() && !session.wants_input()) {
      if (session.waiting_on_shards() && !wait_shards(session, stop)) break;
      session.process();
      continue;
    }
    if (in) {
      if (!*in) break;  // EOF, an error, or the server stops
      session.feed(bytes_of(*in, plain));  // kept, not run, while blocked
      in.reset();  // the buffer goes back to the loop
      reader.join();
      continue;
    }
    if (!reader.joinable() && !start_reader(reader, [&] {
          if constexpr (std::is_same_v<Stream, fiber::TlsStream>) {
            in.emplace(conn.recv(plain, reader_stop.get_token()));
          } else {
            in.emplace(conn.recv_pooled(reader_stop.get_token()));
          }
          wake.set();
        })) {
      break;
    }
    wake.reset();
    if (in || session.has_pushes()) continue;       // came in meanwhile
    if (!wait_event(wake, session, stop)) break;  // the server stops
  }
  reader_stop.request_stop();
  if (reader.joinable()) reader.join();
}

// The calling thread's part of the keyspace (--threads N > 1).
kv::KvShard& this_kv_shard(ServerRuntime& rt) { return rt.cluster().shard(this_shard()->id()); }

// One loop for both ports: Stream is fiber::TcpStream or fiber::TlsStream
// (whose recv decrypts into a buffer of the connection's own).
// sharded (--threads N > 1): the session is on this thread's shard and may
// wait for others; a template parameter, as in the stackless driver.
template <typename Stream, bool sharded = false>
void serve(ServerRuntime& rt, Stream conn, std::stop_token stop) {
  constexpr bool tls = std::is_same_v<Stream, fiber::TlsStream>;
  kv::Session session(sharded ? this_kv_shard(rt).state() : rt.state(), conn.native_handle(),
                      sharded ? &this_kv_shard(rt) : nullptr);
  // TLS only (a plain connection allocates nothing here). Left uninitialised:
  // a read touches only the pages its plaintext fills.
  std::unique_ptr<char[]> plain;
  if constexpr (tls) plain = std::make_unique_for_overwrite<char[]>(TlsEngine::max_plaintext);
  bool open = true;
  if constexpr (tls) {
    auto hs = conn.handshake(ServerRuntime::tls_handshake_timeout, stop);
    if (!hs) rt.on_tls_error(hs.error(), conn.error_message());
    open = hs.ok();
  }
  while (open) {
    if (!session.output().empty() && !flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (session.event_mode()) {  // subscribed, or blocked once (BLPOP ...): pushes and timeouts too
      serve_subscriber(rt, conn, session, {plain.get(), tls ? TlsEngine::max_plaintext : 0}, stop);
      break;
    }
    if (!session.wants_input()) {  // over the output limit (drained), or replies due from other shards
      if constexpr (sharded) {
        if (session.waiting_on_shards() && !wait_shards(session, stop)) break;
      }
      session.process();
      continue;
    }
    // The loop lends a buffer only once bytes are there, and gets it back at
    // the end of this iteration: waiting fibers hold none.
    if constexpr (tls) {
      auto n = conn.recv({plain.get(), TlsEngine::max_plaintext}, stop);
      if (!n) break;
      session.feed({plain.get(), *n});
    } else {
      auto in = conn.recv_pooled(stop);
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
    if (open) (void)conn.shutdown(ServerRuntime::tls_close_timeout);
  }
  rt.on_disconnect();
}

// tls: the listener is the TLS port's; its connections are wrapped in TlsStream.
// sharded: as serve's (shard 0 with --threads N > 1).
template <bool sharded = false>
void accept_loop(ServerRuntime& rt, fiber::Scheduler& scheduler, fiber::TcpListener& listener, std::stop_token stop,
                 bool tls) {
  while (!stop.stop_requested()) {
    auto conn = listener.accept(stop);
    if (!conn) {
      fiber::sleep_for(rt.on_accept_error(conn.error(), listener.native_handle()), stop);
    } else if (tls && rt.admit(conn->native_handle())) {
      fiber::TlsStream stream(std::move(*conn), *rt.tls_context());
      scheduler.spawn(serve<fiber::TlsStream, sharded>, std::ref(rt), std::move(stream), stop).detach();
    } else if (!tls && rt.admit(conn->native_handle())) {
      scheduler.spawn(serve<fiber::TcpStream, sharded>, std::ref(rt), std::move(*conn), stop).detach();
    }
  }
}

// --threads N > 1 ------------------------------------------------------------

// Shard 0 only: the TLS port's or the Unix socket's accept loop, on a fiber
// joined before the shard's part ends (empty when the port is not configured).
fiber::Fiber<void> accept_on_shard0(ServerRuntime& rt, UniqueFd fd, std::optional<fiber::TcpListener>& listener,
                                    const std::stop_token& stop, bool tls) {
  if (!fd) return {};
  listener.emplace(fiber::TcpListener::adopt(std::move(fd)));
  return fiber::spawn([&rt, &listener, stop, tls] {
    accept_loop<true>(rt, *fiber::Scheduler::current(), *listener, stop, tls);
  });
}

// Shard i's part of the server, on a fiber on its thread: its share of the
// port's connections, its cron, and on shard 0 the TLS port and the Unix
// socket. A signal or a SHUTDOWN seen by its cron stops every shard.
void run_shard(ServerRuntime& rt, kv::ShardRuntime& shards, std::size_t i) {
  const std::stop_token stop = this_shard()->stop_token();
  fiber::Fiber<void> ticker = fiber::spawn([&rt, &shards, &stop, i] {
    while (!rt.tick(i) && !stop.stop_requested()) fiber::sleep_for(rt.tick_interval(i), stop);
    shards.stop();
  });
  std::optional<fiber::TcpListener> tls_listener;
  std::optional<fiber::UnixListener> unix_listener;
  auto tls_accept = accept_on_shard0(rt, i == 0 ? shards.take_tls_listener() : UniqueFd(), tls_listener, stop, true);
  auto unix_accept = accept_on_shard0(rt, i == 0 ? shards.take_unix_listener() : UniqueFd(), unix_listener, stop, false);
  if (ConnectionSpreader* spreader = shards.spreader()) {
    fiber::serve_shard(*spreader, [&rt, i](fiber::TcpStream conn, std::stop_token stop) {
      if (rt.admit(conn.native_handle(), i)) serve<fiber::TcpStream, true>(rt, std::move(conn), std::move(stop));
    }, [&rt, i](std::error_code e, int fd) { return rt.on_accept_error(e, fd, i); });
  }
  for (fiber::Fiber<void>* f : {&ticker, &tls_accept, &unix_accept}) {
    if (f->joinable()) f->join();  // the ticker ends at the stop: without a port, this waits for it
  }
  // The append-only file: every other shard's last records reach shard 0
  // before it writes and fsyncs the rest.
  if (i != 0) {
    rt.stop_shard_aof(i);
  } else {
    while (!rt.feeds_stopped()) fiber::sleep_for(std::chrono::milliseconds(1));
    rt.stop_aof();
    rt.serving_ended();
  }
}

int run_sharded(ServerRuntime& rt) {
  kv::ShardRuntime shards(rt, fiber::shard_runner());
  shards.run([&] {
    rt.start_sharded_aof(shards.shard(0).loop(), [&] {
      for (std::size_t i = 0; i < shards.size(); ++i) fiber::spawn_on(shards.shard(i), [&, i] { run_shard(rt, shards, i); });
    });
  });
  rt.on_stopped();
  return 0;
}

}  // namespace

namespace duet::kv {

int run_stackful_driver(ServerRuntime& rt) {
  if (rt.threads() > 1) return run_sharded(rt);
  std::optional<fiber::Scheduler> scheduler;
  rt.open_backend([&](Backend b) { scheduler.emplace(fiber::SchedulerOptions{.backend = b}); });
  std::optional<fiber::TcpListener> listener;
  std::optional<fiber::TcpListener> tls_listener;
  const auto bind_into = [](std::optional<fiber::TcpListener>& l) {
    return [&l](const SocketAddress& a, const ListenOptions& o) { l.emplace(fiber::TcpListener::bind(a, o)); };
  };
  if (rt.plain_port()) rt.bind_listener(bind_into(listener));
  if (rt.tls_context()) rt.bind_tls_listener(bind_into(tls_listener));
  std::optional<fiber::UnixListener> unix_listener;
  rt.bind_unix_listener([&](const SocketAddress& a, const ListenOptions& o) {
    unix_listener.emplace(fiber::UnixListener::bind(a, o));
  });
  rt.start_aof(scheduler->loop());
  if (listener) rt.on_listening(listener->local_address());
  if (tls_listener) rt.on_listening_tls(tls_listener->local_address());
  std::stop_source stop;
  scheduler->spawn([&] {
    while (!rt.tick()) fiber::sleep_for(rt.tick_interval());
    stop.request_stop();  // cancels accept and every connection's pending I/O
  }).detach();
  if (listener) scheduler->spawn([&] { accept_loop(rt, *scheduler, *listener, stop.get_token(), false); }).detach();
  if (tls_listener) scheduler->spawn([&] { accept_loop(rt, *scheduler, *tls_listener, stop.get_token(), true); }).detach();
  if (unix_listener) {  // --unixsocket
    scheduler->spawn([&] { accept_loop(rt, *scheduler, *unix_listener, stop.get_token(), false); }).detach();
  }
  scheduler->run();
  rt.on_stopped();
  return 0;
}

}  // namespace duet::kv
