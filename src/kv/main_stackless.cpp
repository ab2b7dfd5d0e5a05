// duet-kv-stackless: the KV server driven by the stackless voice (Task<T>).
// Everything but the loops below lives in the sans-I/O core and ServerRuntime.
#include <optional>
#include <stop_token>

#include "kv/aof/aof_wait_task.hpp"
#include "kv/push_signal.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"
#include "task/event.hpp"
#include "task/run.hpp"
#include "task/sleep.hpp"
#include "task/task_scope.hpp"
#include "task/tcp_listener.hpp"
#include "task/tcp_stream.hpp"

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
Task<bool> flush(ServerRuntime& rt, TcpStream& conn, kv::Session& session, std::stop_token stop) {
  const auto out = session.output();
  co_await kv::aof_durable(rt.aof());
  if (!co_await conn.send_all(out, std::move(stop))) co_return false;
  session.consume_output(out.size());
  co_return true;
}

// One recv for a subscriber, beside its sends: the bytes (or EOF, an error)
// wait in `in` for the connection's loop, which `wake` calls.
Task<void> read_once(TcpStream& conn, std::optional<IoResult<RecvBuffer>>& in, Event& wake, std::stop_token stop) {
  in.emplace(co_await conn.recv_pooled(std::move(stop)));
  wake.set();
}

// A connection that has subscribed spends the rest of its life here; others
// never get this frame, its event or the second operation. It waits on one
// event that both a push (PushSignal) and its recv (read_once) set, so a
// message costs a wake-up and a send: the recv stays pending across pushes,
// never cancelled and re-armed, and the loop alone runs commands and sends.
Task<void> serve_subscriber(ServerRuntime& rt, TcpStream& conn, kv::Session& session, std::stop_token stop) {
  Event wake(conn.loop());
  kv::PushSignal signal(session, wake);
  TaskScope reader;  // holds the pending recv; joined before the frame goes
  std::stop_callback link(stop, [&reader] { reader.request_stop(); });
  std::optional<IoResult<RecvBuffer>> in;
  bool reading = false;
  for (;;) {
    session.collect_pushes();  // only here, between sends: a push never moves bytes being sent
    if (!session.output().empty() && !co_await flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.wants_input()) {
      session.process();
      continue;
    }
    if (in) {
      if (!*in) break;  // EOF, an error, or the server stops
      session.feed((*in)->bytes());
      in.reset();  // the buffer goes back to the loop
      reading = false;
      continue;
    }
    if (!reading) {
      reading = true;
      reader.spawn(read_once(conn, in, wake, reader.stop_token()));
    }
    wake.reset();
    if (in || session.has_pushes()) continue;  // came in meanwhile
    if (!co_await wake.wait(stop)) break;      // the server stops
  }
  reader.request_stop();
  co_await reader.join();
}

Task<void> serve(ServerRuntime& rt, TcpStream conn, std::stop_token stop) {
  kv::Session session(rt.state(), conn.native_handle());
  for (;;) {
    if (!session.output().empty() && !co_await flush(rt, conn, session, stop)) break;
    if (session.closing()) break;
    if (!session.wants_input()) {  // over the output limit: drained, now run the rest
      session.process();
      continue;
    }
    if (session.push_mode()) {
      co_await serve_subscriber(rt, conn, session, stop);
      break;
    }
    // The loop lends a buffer only once bytes are there, and gets it back at
    // the end of this iteration: waiting connections hold none.
    auto in = co_await conn.recv_pooled(stop);
    if (!in) break;
    session.feed(in->bytes());
  }
  rt.on_disconnect();
}

Task<void> accept_loop(ServerRuntime& rt, EventLoop& loop, TcpListener& listener, TaskScope& scope) {
  while (!scope.stop_token().stop_requested()) {
    auto conn = co_await listener.accept(scope.stop_token());
    if (!conn) {
      co_await sleep_for(loop, rt.on_accept_error(conn.error(), listener.native_handle()), scope.stop_token());
    } else if (rt.admit(conn->native_handle())) {
      scope.spawn(serve(rt, std::move(*conn), scope.stop_token()));
    }
  }
}

Task<void> ticker(ServerRuntime& rt, EventLoop& loop, TaskScope& scope) {
  while (!rt.tick()) co_await sleep_for(loop, rt.tick_interval());
  scope.request_stop();  // cancels accept and every connection's pending I/O
}

Task<void> run_server(ServerRuntime& rt, EventLoop& loop, TcpListener& listener, UnixListener* unix_listener) {
  TaskScope scope;
  scope.spawn(ticker(rt, loop, scope));
  scope.spawn(accept_loop(rt, loop, listener, scope));
  if (unix_listener != nullptr) scope.spawn(accept_loop(rt, loop, *unix_listener, scope));  // --unixsocket
  co_await scope.join();
}

}  // namespace

int main(int argc, char** argv) {
  return ServerRuntime::main(argc, argv, "stackless", [](ServerRuntime& rt) {
    std::optional<EventLoop> loop;
    rt.open_backend([&](Backend b) { loop.emplace(b); });
    std::optional<TcpListener> listener;
    rt.bind_listener([&](const SocketAddress& a) { listener.emplace(TcpListener::bind(*loop, a)); });
    std::optional<UnixListener> unix_listener;
    rt.bind_unix_listener([&](const SocketAddress& a, const ListenOptions& o) {
      unix_listener.emplace(UnixListener::bind(*loop, a, o));
    });
    rt.start_aof(*loop);
    rt.on_listening(listener->local_address());
    run_until_complete(*loop, run_server(rt, *loop, *listener, unix_listener ? &*unix_listener : nullptr));
    rt.on_stopped();
    return 0;
  });
}
