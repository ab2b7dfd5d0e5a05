// Session: drives RespParser over the input buffer and runs each complete
// command against the shared ServerState, the way Redis's processInputBuffer +
// processCommand do, minus the socket. The checks before a handler runs follow
// processCommand's order: unknown command, arity, authentication, maxmemory.
#include "kv/session.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

#include "kv/blocking/blocking.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/detail/command_window.hpp"
#include "kv/detail/run_command.hpp"
#include "kv/multi/multi_state.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"

namespace duet::kv {
namespace {

constexpr std::size_t keep_buffer_bytes = 1024 * 1024;  // shrink buffers above this once idle

bool arity_ok(const Command& cmd, std::size_t argc) noexcept {
  auto n = static_cast<std::ptrdiff_t>(argc);
  return cmd.arity >= 0 ? n == cmd.arity : n >= -cmd.arity;
}

}  // namespace


Session::Session(ServerState& server, int fd, KvShard* shard)
    : server_(server), parser_(server.config().proto_max_bulk_len) {
  if (shard != nullptr && shard->count() > 1) dispatch_ = std::make_unique<ShardDispatch>(*shard, client_);
  client_.fd = fd;
  client_.can_block = true;
  client_.created_ms = client_.last_active_ms = server.now_ms();
  server_.clients().add(client_);
}

Session::~Session() {
  if (client_.multi != nullptr) client_.multi->unwatch_all(server_.store());
  (void)unblock_client(server_, client_, Unblock::silent);  // no trace of a blocked client that went
  server_.clients().remove(client_);
}

// Complete commands run straight from `bytes`; only an unfinished tail is
// copied, into a buffer that is given back once it drains — so a connection
// between requests owns no input buffer at all.
void Session::feed(std::string_view bytes) {
  server_.stats().net_input_bytes += bytes.size();
  if (in_.size() == 0) {
    output_full_ = false;
    bytes.remove_prefix(run_commands(bytes));
    if (closing() || bytes.empty()) {
      note_buffers();
      return;
    }
  }
  auto space = input_space(bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  in_.commit(bytes.size());
  process();
  if (in_.size() == 0) in_.shrink_if_idle(0);
}

std::span<char> Session::input_space(std::size_t min) {
  // Inside a big bulk the parser knows the exact size: make room for all of it
  // once, so a 100 MiB value is received straight into its final place.
  std::size_t wanted = parser_.bytes_wanted();
  std::size_t have = in_.size();
  if (wanted > have + min && wanted <= server_.config().client_query_limit) min = wanted - have;
  return in_.writable(min);
}

void Session::commit_input(std::size_t n) {
  in_.commit(n);
  server_.stats().net_input_bytes += n;
  process();
}

void Session::consume_output(std::size_t n) {
  server_.stats().net_output_bytes += n;
  // Replies that went out are activity too (Redis's writeToClient updates
  // lastinteraction): a client reading a large reply slowly is not idle. Only
  // `timeout` needs it, so without one no clock is read per reply (a clock read
  // per flush cost +6% instructions per request at pipeline 1).
  if (n > 0 && server_.config().timeout > 0) client_.last_active_ms = server_.now_ms();
  if (n >= out_.size()) {
    out_.clear();
    if (out_.capacity() > keep_buffer_bytes) std::string().swap(out_);
  } else {
    out_.erase(0, n);
  }
  client_.output_buffer = out_.size();
}

void Session::process() {
  output_full_ = false;
  in_.consume(run_commands(in_.readable()));
  if (closing()) in_.clear();
  if (in_.size() == 0) in_.shrink_if_idle(keep_buffer_bytes);
  note_buffers();
}

// Runs the complete commands at the start of input; returns the bytes they
// used. Stops at an unfinished command, a protocol error (the connection then
// closes) or a full output buffer (output_full_).
std::size_t Session::run_commands(std::string_view input) {
  if (client_.block != nullptr && client_.block->blocked) [[unlikely]] {  // kept until it is served
    if (input.size() > server_.config().client_query_limit) client_.close_after_reply = true;
    // Blocked by a reply from other shards (a MultiBlock, after its job): the
    // state is new, and the driver's waker not on it yet.
    if (push_waker_ != nullptr) install_push_waker();
    return 0;
  }
  if (dispatch_ != nullptr) [[unlikely]] dispatch_->begin_run(out_);  // replies back from other shards
  if (client_.subscriber != nullptr) [[unlikely]] collect_pushes();  // pushes that came first go first
  const std::int64_t now = server_.now_ms();
  const ServerConfig& config = server_.config();
  // Every read counts as activity, a partial command too, as Redis's
  // lastinteraction does: CLIENT LIST's idle= and the `timeout` check read it.
  client_.last_active_ms = now;
  detail::CommandWindow& window = detail::CommandWindow::this_thread();
  assert(!window.in_use && "run_commands re-entered on one thread");
  window.in_use = true;
  struct Release {
    detail::CommandWindow& window;
    ~Release() {
      window.in_use = false;
      // A command of a million arguments leaves no 16 MB behind on the thread.
      if (window.args.capacity() > 4096) std::vector<std::string_view>().swap(window.args);
    }
  } release{window};
  std::size_t used = 0;
  bool stopped = false;
  while (!stopped && !client_.close_after_reply && used < input.size()) {
    const ParseStatus status = parse_window(window, input, used);
    if (status == ParseStatus::incomplete) {
      if (input.size() - used > config.client_query_limit) client_.close_after_reply = true;
      break;
    }
    if (status == ParseStatus::error) {
      Reply(sink()).error(parser_.error());
      client_.close_after_reply = true;
      break;
    }
    for (std::size_t i = 0; i < window.size; ++i) {
      const std::size_t held = dispatch_ == nullptr ? 0 : dispatch_->held_bytes();  // replies behind others still due
      if (out_.size() + held >= config.client_output_limit) {
        output_full_ = stopped = true;
        break;
      }
      if (client_.close_after_reply) break;  // QUIT, SHUTDOWN
      const detail::CommandWindow::Parsed& command = window.commands[i];
      const auto argv = window.argv(command);
      if (dispatch_ == nullptr) {
        execute(command.command, argv, now);
      } else {
        if (!queues_in_multi(command.command) && dispatch_->must_stall(command.command, argv)) [[unlikely]] {  // parsed again later
          stopped = true;
          break;
        }
        execute(command.command, argv, now);
      }
      if (client_.block != nullptr && client_.block->blocked) [[unlikely]] {  // BLPOP ...: the rest waits
        if (client_.block->request.kind != BlockRequest::Kind::postpone) used = command.end;  // else it runs again
        stopped = true;
        break;
      }
      used = command.end;
    }
  }
  if (dispatch_ != nullptr) [[unlikely]] dispatch_->end_run();
  if (push_waker_ != nullptr) [[unlikely]] install_push_waker();  // a block or subscription made just now
  return used;
}

void Session::note_buffers() noexcept {
  client_.query_buffer = in_.size();
  client_.output_buffer = out_.size();
}

void Session::execute(const Command* cmd, std::span<const std::string_view> argv, std::int64_t now) {
  if (argv.empty()) return;  // "*0", "*-1", blank inline line
  if (cmd == nullptr) {
    flag_transaction();
    reject_unknown(argv);
    return;
  }
  std::string& to = sink();
  CommandContext ctx{server_, client_, argv, Reply(to, client_.resp), now};
  if (!arity_ok(*cmd, argv.size())) {
    std::string message = "ERR wrong number of arguments for '";
    message.append(cmd->name).append("' command");
    return reject(*cmd, ctx, message);
  }
  if (server_.requires_auth() && !client_.authenticated && (cmd->flags & cmd_no_auth) == 0) {
    return reject(*cmd, ctx, "NOAUTH Authentication required.");
  }
  if (client_.multi != nullptr) [[unlikely]] {
    if (!multi_checks(*cmd, ctx)) return;
  } else if ((cmd->flags & cmd_denyoom) != 0 && server_.over_maxmemory()) {  // noeviction: nothing to free
    return reject(*cmd, ctx, oom_error);
  }
  if (client_.resp == 2 && client_.subscriber != nullptr && client_.subscriber->subscribed() &&
      (cmd->flags & cmd_subscribed_ok) == 0) [[unlikely]] {  // RESP3 tells pushes from replies: any command goes
    return reject(*cmd, ctx, subscribed_context_error(argv));
  }
  if (server_.pause_end_ms() != 0 && postpones(*cmd, now)) [[unlikely]] {  // CLIENT PAUSE: runs afterwards
    postpone_client(client_, server_.pause_end_ms());
    return;
  }
  if (in_multi(client_) && (cmd->flags & cmd_multi_control) == 0) [[unlikely]] {
    client_.multi->queue(*cmd, argv, (cmd->flags & cmd_denyoom) != 0);
    ctx.reply.simple("QUEUED");
    return;
  }
  client_.last_command = cmd->name;  // before the handler, so CLIENT LIST shows itself
  if (client_.reply_off || client_.reply_skip) [[unlikely]] return run_quietly(*cmd, argv, ctx);
  const std::size_t mark = to.size();
  run(*cmd, argv, ctx);
  if (client_.reply_off || client_.reply_skip) [[unlikely]] to.resize(mark);  // CLIENT REPLY OFF|SKIP: its own reply too
}

void Session::run(const Command& cmd, std::span<const std::string_view> argv, CommandContext& ctx) {
  std::string& to = ctx.reply.buffer();
  if (dispatch_ != nullptr) [[unlikely]] {
    if (dispatch_->takes(cmd, argv)) return;  // runs on another shard
    const std::size_t before = to.size();
    detail::run_command(cmd, ctx);
    dispatch_->note_reply(to.size() - before);  // sizes what waits on other shards
    return;
  }
  detail::run_command(cmd, ctx);
}

// CLIENT REPLY OFF or SKIP (networking.c): the command runs, its reply is
// dropped — made here, or due from another shard (a quiet hole).
void Session::run_quietly(const Command& cmd, std::span<const std::string_view> argv, CommandContext& ctx) {
  const bool skip = client_.reply_skip;
  client_.reply_skip = false;
  const std::size_t mark = ctx.reply.buffer().size();
  if (dispatch_ != nullptr) dispatch_->set_quiet(true);  // a hole it makes is dropped when collected
  run(cmd, argv, ctx);
  if (dispatch_ != nullptr) dispatch_->set_quiet(false);
  if (skip || client_.reply_off || client_.reply_skip) ctx.reply.buffer().resize(mark);
}

bool Session::has_pushes() const noexcept {
  return (client_.subscriber != nullptr && !client_.subscriber->queue().empty()) ||
         (client_.block != nullptr && client_.block->answered);
}

bool Session::blocked() const noexcept { return client_.block != nullptr && client_.block->blocked; }

std::int64_t Session::block_wait_ms() const {
  if (!blocked() || client_.block->deadline_ms == 0) return -1;
  // At most a day at a time: a far deadline (BLPOP k 1e12) would overflow
  // the clock's nanoseconds; timed_out() sees it has not come yet.
  constexpr std::int64_t day_ms = 86'400'000;
  const std::int64_t deadline = client_.block->deadline_ms;
  const std::int64_t now = server_.now_ms();
  return deadline <= now ? 0 : std::min(deadline - now, day_ms);
}

void Session::timed_out() {
  if (!blocked() || server_.now_ms() < client_.block->deadline_ms) return;
  BlockState& b = *client_.block;
  if (b.request.kind == BlockRequest::Kind::postpone) return b.finish();  // the pause is over: the command runs
  if (b.remote != nullptr) {  // the keys' shard answers (a serve may have won the race)
    b.deadline_ms = 0;
    b.cancel_remote(b.remote, false);
    return;
  }
  (void)unblock_client(server_, client_, Unblock::timeout);
}

// The only place pushed bytes reach out_: called by the driver when no send is
// in flight, and by run_commands (which runs only then too).
void Session::collect_pushes() {
  if (client_.block != nullptr && client_.block->answered) [[unlikely]] collect_unblocked();
  if (client_.subscriber == nullptr) return;
  std::string& queue = client_.subscriber->queue();
  if (queue.empty()) return;
  if (out_.empty()) {
    out_.swap(queue);  // the common case: no copy; the queue keeps out_'s old capacity
  } else {
    out_.append(queue);
    queue.clear();
  }
  if (queue.capacity() > keep_buffer_bytes) std::string().swap(queue);
  client_.output_buffer = out_.size();
}

// A served or timed-out block's answer goes where the blocking command's reply
// would have gone; then the commands that arrived while it waited run.
void Session::collect_unblocked() {
  BlockState& b = *client_.block;
  b.answered = false;
  sink().append(b.reply);
  b.reply.clear();
  if (b.reply.capacity() > keep_buffer_bytes) std::string().swap(b.reply);
  process();  // what came meanwhile; a remote block's answer, from its hole
  note_buffers();
}

void Session::set_push_waker(Subscriber::Waker waker, void* context) noexcept {
  push_waker_ = waker;
  push_context_ = context;
  install_push_waker();
}

void Session::install_push_waker() noexcept {
  if (client_.subscriber != nullptr) client_.subscriber->set_waker(push_waker_, push_context_);
  if (client_.block != nullptr) client_.block->set_waker(push_waker_, push_context_);
}

}  // namespace duet::kv
