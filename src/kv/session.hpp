// duet::kv::Session — one client connection without the connection: bytes in,
// reply bytes out.
//
// Contract
// - Input: either feed(bytes) — commands run straight from bytes, only an
//   unfinished tail is copied, and the session keeps no input buffer between
//   requests (for drivers that receive into a shared buffer: recv_pooled) —
//   or write into input_space() and call commit_input(n) (a buffer of its own,
//   no copy). Both run every complete command (pipelining) and append the
//   replies to one output buffer.
// - Output: output() is what to send; after sending k bytes call
//   consume_output(k). Drivers send everything before reading again.
// - closing(): after flushing output(), close the connection (QUIT, a protocol
//   error — its error reply is the last output —, or a query buffer over
//   client-query-buffer-limit). Input after that point is ignored.
// - Backpressure: commands stop running while output() holds more than
//   config.client_output_limit bytes; wants_input() is then false and the driver
//   should send, then call process() (not recv) until wants_input() is true.
// - Pub/sub (kv/pubsub.hpp): once the client has subscribed, push_mode() is
//   true for the rest of its life and publishers append to its queue, never to
//   output(), so a push cannot move bytes a send is reading. The driver then
//   also waits for pushes: set_push_waker() installs what a push calls, and
//   collect_pushes() — between sends only — appends the queue to output().
//   Commands collect it too before they run, so replies stay in order.
// - Many shards (kv/shard/): a session made with the KvShard of a cluster of
//   more than one shard sends commands on other shards' keys there; while
//   their replies are out, wants_input() is false and, when nothing can move
//   until one comes back, waiting_on_shards() is true: the driver then waits
//   for the waker it installed with set_shard_waker(), then calls process().
//   closing() waits for those replies too. Without a shard nothing changes.
// - The session registers its ClientInfo in the server's registry for its whole
//   life (CLIENT LIST). One thread: the one running the server state.
//
//   Session session(state);
//   for (;;) {
//     if (!send_all(session.output())) break; session.consume_output(session.output().size());
//     if (session.closing()) break;
//     if (!session.wants_input()) { session.process(); continue; }
//     auto space = session.input_space(); n = recv(space); if (n <= 0) break; session.commit_input(n);
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "kv/client_registry.hpp"
#include "kv/detail/input_buffer.hpp"
#include "kv/resp_parser.hpp"
#include "kv/server_state.hpp"
#include "kv/shard/shard_dispatch.hpp"

namespace duet::kv {

struct Command;
struct CommandContext;
namespace detail {
struct CommandWindow;
}

class Session {
 public:
  // fd: the client's socket, for CLIENT LIST (-1 when there is none).
  explicit Session(ServerState& server, int fd = -1, KvShard* shard = nullptr);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) = delete;
  Session& operator=(Session&&) = delete;
  ~Session();

  void feed(std::string_view bytes);
  [[nodiscard]] std::span<char> input_space(std::size_t min = 16 * 1024);
  void commit_input(std::size_t n);
  void process();

  [[nodiscard]] std::string_view output() const noexcept { return out_; }
  void consume_output(std::size_t n);
  [[nodiscard]] bool closing() const noexcept {
    return client_.close_after_reply && (dispatch_ == nullptr || !dispatch_->busy());
  }
  [[nodiscard]] bool wants_input() const noexcept {
    return !client_.close_after_reply && !output_full_ && (dispatch_ == nullptr || !dispatch_->busy());
  }
  [[nodiscard]] bool waiting_on_shards() const noexcept { return dispatch_ != nullptr && dispatch_->waiting(); }
  void set_shard_waker(ShardDispatch::Waker waker, void* context) noexcept {
    if (dispatch_ != nullptr) dispatch_->set_waker(waker, context);
  }

  [[nodiscard]] bool push_mode() const noexcept { return client_.subscriber != nullptr; }
  // The driver's loop with a recv beside its waits (drivers.hpp): a
  // subscriber, or a client that has blocked (BLPOP ...) and may again.
  [[nodiscard]] bool event_mode() const noexcept { return client_.subscriber != nullptr || client_.block != nullptr; }
  // Blocked on keys (kv/blocking/): no command runs (input is kept) until a
  // push serves it, its timeout passes (block_wait_ms, then timed_out()) or
  // CLIENT UNBLOCK; the push waker runs then, and collect_pushes() moves the
  // answer to output() and runs the commands that came meanwhile.
  [[nodiscard]] bool blocked() const noexcept;
  // Milliseconds left before the block's timeout (-1: none).
  [[nodiscard]] std::int64_t block_wait_ms() const;
  void timed_out();
  [[nodiscard]] bool has_pushes() const noexcept;
  void collect_pushes();
  void set_push_waker(Subscriber::Waker waker, void* context) noexcept;

  [[nodiscard]] ClientInfo& client() noexcept { return client_; }
  [[nodiscard]] const ClientInfo& client() const noexcept { return client_; }

 private:
  // Redis's shared.oomerr (processCommand past maxmemory, noeviction).
  static constexpr std::string_view oom_error = "OOM command not allowed when used memory > 'maxmemory'.";
  std::size_t run_commands(std::string_view input);
  // A window of commands parsed ahead of running them (session.cpp).
  [[nodiscard]] ParseStatus parse_window(detail::CommandWindow& window, std::string_view input, std::size_t from);
  void prefetch_window(const detail::CommandWindow& window) const noexcept;
  void note_buffers() noexcept;
  void collect_unblocked();
  void install_push_waker() noexcept;
  void execute(const Command* cmd, std::span<const std::string_view> argv, std::int64_t now);
  void run(const Command& cmd, std::span<const std::string_view> argv, CommandContext& ctx);
  void run_quietly(const Command& cmd, std::span<const std::string_view> argv, CommandContext& ctx);
  [[nodiscard]] bool multi_checks(const Command& cmd, CommandContext& ctx);
  [[nodiscard]] bool postpones(const Command& cmd, std::int64_t now);
  void flag_transaction() noexcept;
  // Inside MULTI every command but EXEC, DISCARD, MULTI, WATCH, QUIT and
  // RESET is queued here: it goes to no shard (many shards) until EXEC.
  [[nodiscard]] bool queues_in_multi(const Command* cmd) const noexcept;
  void reject_unknown(std::span<const std::string_view> argv);
  void reject(const Command& cmd, CommandContext& ctx, std::string_view error);
  static std::string subscribed_context_error(std::span<const std::string_view> argv);
  // Where a reply made here goes: the output, or after replies still due
  // from other shards.
  [[nodiscard]] std::string& sink() { return dispatch_ == nullptr ? out_ : dispatch_->sink(out_); }

  ServerState& server_;
  ClientInfo client_;
  RespParser parser_;
  detail::InputBuffer in_;
  std::string out_;
  std::unique_ptr<ShardDispatch> dispatch_;  // only with more than one shard
  bool output_full_ = false;  // complete commands wait for the output to drain
  Subscriber::Waker push_waker_ = nullptr;  // the driver's, for pushes and a block's answer
  void* push_context_ = nullptr;
};

}  // namespace duet::kv
