// duet-kv-sim's clients: stackless tasks on the server's loop. A client sends
// a pipeline, reads its replies, checks them against its model; the
// subscriber checks that every acknowledged PUBLISH arrives, in order.
#include "kv/sim/sim_clients.hpp"

#include <charconv>
#include <map>
#include <optional>
#include <vector>

#include "duet/io/clock.hpp"
#include "kv/sim/kv_model.hpp"
#include "duet/task/event.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/with_timeout.hpp"

namespace duet::kv::sim {

namespace {

constexpr std::size_t malformed = std::string_view::npos;

std::size_t line_end(std::string_view b, std::size_t at) {
  const std::size_t end = b.find("\r\n", at);
  return end == std::string_view::npos ? 0 : end;
}

std::int64_t header_number(std::string_view b, std::size_t at, std::size_t end, bool& ok) {
  std::int64_t n = 0;
  const auto r = std::from_chars(b.data() + at + 1, b.data() + end, n);
  ok = r.ec == std::errc() && r.ptr == b.data() + end;
  return n;
}

// Reads replies into `buffer` until it holds `count` of them; their ends in
// `ends` (as many as arrived whole, also when the connection is lost).
Task<std::string> read_replies(TcpStream& conn, std::string& buffer, std::size_t count,
                               std::vector<std::size_t>& ends, bool& lost) {
  ends.clear();
  lost = false;
  std::size_t at = 0;
  char chunk[16 * 1024];
  while (ends.size() < count) {
    const std::size_t n = reply_length(buffer, at);
    if (n == malformed) co_return "malformed reply: " + buffer.substr(at, 80);
    if (n != 0) {
      at += n;
      ends.push_back(at);
      continue;
    }
    auto got = co_await conn.recv(std::span<char>(chunk, sizeof chunk));
    if (!got || *got == 0) {
      lost = true;
      co_return "connection lost: " + (got ? std::string("end of file") : got.error().message());
    }
    buffer.append(chunk, *got);
  }
  co_return "";
}

void fail(SimRun& run, std::string problem) {
  if (run.failure.empty()) run.failure = std::move(problem);
}

// One client for one generation: after a restart it first reads back its
// keys (the audit), then sends its share. A lost connection leaves the
// commands it sent and saw no answer to unknown to the model: after a crash
// the client ends; after a reset (SimOptions::reset) it waits for the
// server to have dropped the old connection, reconnects and audits again.
Task<void> client(EventLoop& loop, SimRun& run, int id, std::uint64_t requests) {
  const std::string who = "client " + std::to_string(id);
  KvModel& model = *run.models[static_cast<std::size_t>(id)];
  std::optional<TcpStream> conn;
  std::string buffer;
  std::vector<ModelCommand> batch;
  std::vector<std::size_t> ends;
  std::uint64_t sent = 0;
  bool audit = run.generation > 0;
  while ((audit || sent < requests) && run.failure.empty() && !run.crashed) {
    if (!conn) {
      auto made = co_await TcpStream::connect(loop, run.server);
      if (!made) {
        if (!run.crashed) fail(run, who + " cannot connect: " + made.error().message());
        co_return;
      }
      conn.emplace(std::move(*made));
    }
    batch.clear();
    if (audit) {
      batch = model.audit();
    } else {
      const std::uint64_t size = std::min<std::uint64_t>(requests - sent, 1 + run.world.below(run.max_pipeline));
      for (std::uint64_t i = 0; i < size; ++i) batch.push_back(model.next(run.channel));
      sent += size;
      run.sent += size;
    }
    std::string out;
    for (const ModelCommand& c : batch) out += c.bytes;
    const std::int64_t sent_ms = wall_ms();
    auto wrote = co_await conn->send_all(std::span<const char>(out));
    buffer.clear();
    ends.clear();
    bool lost = !wrote;
    std::string problem = lost ? who + " send: " + wrote.error().message() : "";
    if (!lost) problem = co_await read_replies(*conn, buffer, batch.size(), ends, lost);
    const std::int64_t replied_ms = wall_ms();
    if (!lost && !problem.empty()) co_return fail(run, who + ": " + problem);
    for (std::size_t i = 0; i < ends.size(); ++i) {  // every whole reply is an answer, also before a loss
      const std::size_t begin = i == 0 ? 0 : ends[i - 1];
      if (std::string bad = model.settle(batch[i], buffer.substr(begin, ends[i] - begin), sent_ms, replied_ms);
          !bad.empty()) {
        co_return fail(run, bad);
      }
      if (audit) {
        ++run.audited;
      } else {
        ++run.replies_checked;
        ++run.checked;
        if (batch[i].kind == ModelCommand::Kind::publish) ++run.published;
      }
    }
    if (!lost) {
      audit = false;
      // Think time now and then, so that expiry and the server's cron interleave.
      if (run.world.below(16) == 0) co_await sleep_for(loop, std::chrono::milliseconds(run.world.below(50)));
      continue;
    }
    const std::vector<ModelCommand> unanswered(batch.begin() + static_cast<std::ptrdiff_t>(ends.size()), batch.end());
    model.lose(unanswered, sent_ms, replied_ms);
    if (!audit) run.unknown += unanswered.size();
    conn.reset();
    if (run.crashed) co_return;
    ++run.resets;
    // The server runs what it read before it saw the reset: let it finish
    // (and fsync) before the audit reads the outcome.
    co_await sleep_for(loop, std::chrono::milliseconds(100));
    audit = true;
  }
}

// Messages arrive as *3 message <channel> <payload>; payload "m<client>.<round>"
// must grow per client.
std::string check_message(std::string_view reply, std::map<int, long>& last) {
  constexpr std::string_view head = "*3\r\n$7\r\nmessage\r\n";
  const std::size_t m = reply.rfind("\r\nm");
  if (!reply.starts_with(head) || m == std::string_view::npos) {
    return "subscriber: unexpected push " + std::string(reply.substr(0, 80));
  }
  const std::string_view payload = reply.substr(m + 3, reply.size() - m - 5);
  const std::size_t dot = payload.find('.');
  int client = 0;
  long round = 0;
  std::from_chars(payload.data(), payload.data() + dot, client);
  std::from_chars(payload.data() + dot + 1, payload.data() + payload.size(), round);
  auto [it, fresh] = last.try_emplace(client, round);
  if (!fresh && round <= it->second) return "subscriber: message out of order: " + std::string(payload);
  it->second = round;
  return "";
}

Task<void> subscriber(EventLoop& loop, SimRun& run, Event& subscribed) {
  // Spared from injected resets once connected; one may still strike before
  // that (the server's side may read first): then it connects again.
  std::optional<TcpStream> conn;
  std::string buffer;
  std::vector<std::size_t> ends;
  std::string problem = "subscriber cannot connect";
  for (int attempt = 0; attempt < 10 && !problem.empty() && !run.crashed; ++attempt) {
    auto made = co_await TcpStream::connect(loop, run.server);
    if (!made) break;
    conn.emplace(std::move(*made));
    (void)run.world.spare_from_faults(conn->native_handle());  // what it checks needs every message
    const std::string cmd = resp_command({"SUBSCRIBE", run.channel});
    (void)co_await conn->send_all(std::span<const char>(cmd));
    buffer.clear();
    bool lost = false;
    problem = co_await read_replies(*conn, buffer, 1, ends, lost);
    if (!lost) break;
    problem = "subscriber: " + problem;
  }
  const std::string want = "*3\r\n$9\r\nsubscribe\r\n" + resp_bulk(run.channel) + ":1\r\n";
  if (problem.empty() && buffer != want) problem = "subscriber: SUBSCRIBE replied " + buffer;
  if (!problem.empty()) {
    if (!run.crashed) fail(run, problem);
    subscribed.set();
    co_return;
  }
  subscribed.set();
  buffer.clear();
  std::map<int, long> last;
  std::chrono::steady_clock::time_point give_up = std::chrono::steady_clock::time_point::max();
  char chunk[16 * 1024];
  while (problem.empty() && run.failure.empty()) {
    if (run.crashed) break;  // what it had not delivered died with it
    if (run.clients_done && run.delivered >= run.published) break;
    if (run.clients_done && give_up == std::chrono::steady_clock::time_point::max()) give_up = now() + std::chrono::seconds(5);
    if (now() >= give_up) {
      problem = "subscriber: " + std::to_string(run.published - run.delivered) + " acknowledged messages never came";
      break;
    }
    std::size_t n;
    while (problem.empty() && (n = reply_length(buffer)) != 0) {
      if (n == malformed) {
        problem = "subscriber: malformed push";
        break;
      }
      problem = check_message(std::string_view(buffer).substr(0, n), last);
      buffer.erase(0, n);
      ++run.delivered;
    }
    auto got = co_await with_timeout(conn->recv(std::span<char>(chunk, sizeof chunk)), std::chrono::milliseconds(100));
    if (got) {
      buffer.append(chunk, *got);
    } else if (got.error() != std::errc::timed_out) {
      if (!run.stop_requested && !run.crashed) problem = "subscriber: connection lost: " + got.error().message();
      break;  // the server stopping (or dying) closes it
    }
  }
  if (!problem.empty() && run.failure.empty()) run.failure = problem;
}

// Pipelines GETs of a big value and reads the replies 1 KiB a millisecond,
// so the server's send_all is always between chunks; once the stop is
// requested it reads on for a seeded while (past a server tick or not), then
// stops reading: the server's stop must still cancel the transfer.
Task<void> slow_reader(EventLoop& loop, SimRun& run) {
  auto conn = co_await TcpStream::connect(loop, run.server);
  if (!conn) {
    if (run.failure.empty()) run.failure = "slow reader cannot connect";
    co_return;
  }
  (void)run.world.spare_from_faults(conn->native_handle());  // a reset would end its test early
  const std::string key = "slow:big";
  std::string out = resp_command({"SET", key, std::string(64 * 1024, 'b')});
  for (int i = 0; i < 32; ++i) out += resp_command({"GET", key});
  (void)co_await conn->send_all(std::span<const char>(out));
  char chunk[1024];
  std::optional<std::chrono::steady_clock::time_point> read_until;
  bool eof = false;
  while (!eof && run.failure.empty()) {
    if (run.stop_requested && !read_until) {
      read_until = now() + std::chrono::milliseconds(run.world.below(150));
    }
    if (read_until && now() >= *read_until) break;
    auto got = co_await with_timeout(conn->recv(std::span<char>(chunk, sizeof chunk)), std::chrono::milliseconds(1));
    eof = !got && got.error() != std::errc::timed_out;
    co_await sleep_for(loop, std::chrono::milliseconds(1));
  }
  // Not reading any more: the server has to stop all the same.
  const auto deadline = now() + std::chrono::seconds(30);
  while (!run.server_stopped && now() < deadline) co_await sleep_for(loop, std::chrono::milliseconds(10));
  if (!run.server_stopped && run.failure.empty()) {
    run.failure = "the server did not stop within 30 s (virtual) of the stop request while a client stopped reading";
  }
}

}  // namespace

std::int64_t wall_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(wall_now().time_since_epoch()).count();
}

std::size_t reply_length(std::string_view b, std::size_t at) {
  if (at >= b.size()) return 0;
  const std::size_t end = line_end(b, at);
  if (end == 0) return 0;
  bool ok = true;
  switch (b[at]) {
    case '+':
    case '-':
      return end + 2 - at;
    case ':':
      (void)header_number(b, at, end, ok);
      return ok ? end + 2 - at : malformed;
    case '$': {
      const std::int64_t len = header_number(b, at, end, ok);
      if (!ok || len < -1) return malformed;
      if (len == -1) return end + 2 - at;
      const std::size_t total = end + 2 + static_cast<std::size_t>(len) + 2;
      if (b.size() < total) return 0;
      return b.substr(total - 2, 2) == "\r\n" ? total - at : malformed;
    }
    case '*': {
      const std::int64_t count = header_number(b, at, end, ok);
      if (!ok || count < -1) return malformed;
      std::size_t pos = end + 2;
      for (std::int64_t i = 0; i < count; ++i) {
        const std::size_t n = reply_length(b, pos);
        if (n == 0 || n == malformed) return n;
        pos += n;
      }
      return pos - at;
    }
    default:
      return malformed;
  }
}

namespace {

// Kills the process at a seeded point of the generation: after a quarter to
// three quarters of its replies, in the middle of whatever is in flight.
Task<void> crasher(EventLoop& loop, SimRun& run, std::function<void()> stop) {
  const std::uint64_t at = run.to_send / 4 + run.world.below(run.to_send / 2 + 1);
  while (run.checked < at && !run.clients_done && run.failure.empty()) {
    co_await sleep_for(loop, std::chrono::microseconds(100 + run.world.below(3000)));
  }
  run.crashed = true;
  ++run.crashes;
  run.world.crash(run.world.chance(0.5));
  run.stop_requested = true;
  stop();  // the dead process's code is wound down; nothing it does reaches the disk
}

}  // namespace

SimRun::SimRun(SimWorld& w, const SocketAddress& address, int client_count)
    : world(w), server(address), clients(client_count) {
  for (int id = 0; id < clients; ++id) models.push_back(std::make_unique<KvModel>(id, world));
}

SimRun::~SimRun() = default;

void SimRun::begin_generation(int index, std::uint64_t requests, bool crash_at_end, bool only_audit) {
  generation = index;
  to_send = requests;
  crash = crash_at_end;
  audit_only = only_audit;
  crashed = false;
  sent = checked = published = delivered = 0;
  clients_done = stop_requested = server_stopped = finished = false;
}

Task<void> drive(EventLoop& loop, SimRun& run, std::function<void()> stop) {
  {
    TaskScope scope;
    Event subscribed(loop);
    scope.spawn(subscriber(loop, run, subscribed));
    (void)co_await subscribed.wait();
    const bool clean_stop = !run.crash && !run.audit_only;
    if (clean_stop) scope.spawn(slow_reader(loop, run));
    if (run.crash) scope.spawn(crasher(loop, run, stop));
    {
      TaskScope clients;
      const auto n = static_cast<std::uint64_t>(run.clients);
      for (int id = 0; id < run.clients; ++id) {
        const std::uint64_t extra = static_cast<std::uint64_t>(id) < run.to_send % n ? 1 : 0;
        clients.spawn(client(loop, run, id, run.to_send / n + extra));
      }
      co_await clients.join();
    }
    run.clients_done = true;
    while (clean_stop && run.delivered < run.published && run.failure.empty() && !run.server_stopped) {
      co_await sleep_for(loop, std::chrono::milliseconds(10));  // the subscriber's last messages
    }
    if (!run.crash) {
      run.stop_requested = true;
      stop();
    }
    co_await scope.join();
  }
  run.finished = true;
}

}  // namespace duet::kv::sim
