// ShardRuntime: a ShardSet for the KV server's shards, the cluster's
// transport over it, and the listening sockets, bound before any shard serves.
#include "kv/shard_runtime.hpp"

#include "duet/io/event_loop.hpp"
#include "duet/io/socket_ops.hpp"

namespace duet::kv {

ShardRuntime::ShardRuntime(ServerRuntime& rt, ShardRunner& runner) {
  rt.open_backend([&](Backend backend) {
    set_.reset();  // a failed io_uring attempt leaves nothing behind
    // The default loop options: a shard awaiting an answer (a batch, a job's
    // part: the reply watch below) spins up to 20 µs before it sleeps. GET
    // P16 at --threads 2: context switches 0.04-0.05 -> 0.013 per request.
    set_.emplace(ShardSetOptions{.shards = rt.threads(), .backend = backend, .calling_thread = true}, runner);
  });
  rt.cluster().set_transport(
      [](void* set, std::size_t shard, LoopMessage& msg) noexcept { static_cast<ShardSet*>(set)->shard(shard).send(msg); },
      &*set_);
  rt.cluster().set_reply_watch([](bool awaiting) noexcept {
    EventLoop* loop = EventLoop::current();  // the shard's: replies come back to the sending thread
    if (loop == nullptr) return;
    if (awaiting) {
      loop->await_reply();
    } else {
      loop->reply_arrived();
    }
  });
  bind_listeners(rt);
}

// The sockets exist before any shard runs, so port 0's pick is known and
// logged (the tests read it) before the first accept.
void ShardRuntime::bind_listeners(ServerRuntime& rt) {
  if (rt.plain_port()) {
    rt.bind_listener([&](const SocketAddress& address, const ListenOptions& options) {
      spreader_.emplace(rt.threads(), address, SpreadOptions{.mode = rt.accept_mode(), .listen = options});
    });
  }
  if (rt.tls_context() != nullptr) {
    rt.bind_tls_listener([&](const SocketAddress& address, const ListenOptions& options) {
      tls_listener_ = open_listener(address, options);
    });
  }
  rt.bind_unix_listener([&](const SocketAddress& address, const ListenOptions& options) {
    unix_listener_ = open_listener(address, options);
  });
  if (spreader_) rt.on_listening(spreader_->local_address());
  if (tls_listener_) rt.on_listening_tls(local_address_of(tls_listener_.get()));
}

ShardRuntime::~ShardRuntime() { set_.reset(); }

}  // namespace duet::kv
