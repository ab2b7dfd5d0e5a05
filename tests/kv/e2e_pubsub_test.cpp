// PUBLISH/SUBSCRIBE end to end: both executables on both backends, over raw
// sockets and through redis-cli's subscribe mode. Also the output limit: a
// subscriber that stops reading is dropped while the publisher keeps getting
// its replies, and a slow reader gets every byte of a burst intact (built with
// ASan, this is the test that a push never moves bytes a send points at).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "e2e_support.hpp"
#include "e2e_target.hpp"
#include "kv_test_util.hpp"

using kve2e::Client;
using kve2e::ServerProcess;
using kve2e::Target;
using kve2e::pick_target;
using kvtest::resp;

namespace {

std::string bulk(std::string_view s) { return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n"; }

std::string message(std::string_view channel, std::string_view text) {
  return "*3\r\n$7\r\nmessage\r\n" + bulk(channel) + bulk(text);
}

std::string confirm(std::string_view kind, std::string_view name, int count) {
  return "*3\r\n" + bulk(kind) + bulk(name) + ":" + std::to_string(count) + "\r\n";
}

// Asks until `channel` has `n` subscribers (a subscription made on another
// connection is visible once that connection's command has run).
bool wait_numsub(Client& c, std::string_view channel, int n) {
  const std::string want = "*2\r\n" + bulk(channel) + ":" + std::to_string(n) + "\r\n";
  for (int i = 0; i < 200; ++i) {
    if (c.call(resp({"PUBSUB", "NUMSUB", channel}), want.size()) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("subscribers get what publishers send, and the subscribed context holds", "[kv][e2e][pubsub]") {
  Target t = pick_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args());
  Client sub(server.port()), pub(server.port());
  const std::string subscribed = confirm("subscribe", "news", 1) + confirm("psubscribe", "n*", 2);
  CHECK(sub.call(resp({"SUBSCRIBE", "news"}) + resp({"PSUBSCRIBE", "n*"}), subscribed.size()) == subscribed);
  CHECK(pub.call(resp({"PUBLISH", "news", "hello"}), 4) == ":2\r\n");
  const std::string pushed = message("news", "hello") + "*4\r\n$8\r\npmessage\r\n" + bulk("n*") + bulk("news") +
                             bulk("hello");
  CHECK(sub.read_exact(pushed.size()) == pushed);
  const std::string pong = "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n";
  CHECK(sub.call(resp({"PING", "hi"}), pong.size()) == pong);
  const std::string refused =
      "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
      "context\r\n";
  CHECK(sub.call(resp({"GET", "k"}), refused.size()) == refused);
  // Messages published while the subscriber sends commands interleave whole.
  for (int i = 0; i < 100; ++i) CHECK(pub.call(resp({"PUBLISH", "news", std::to_string(i)}), 4) == ":2\r\n");
  std::string expected;
  for (int i = 0; i < 100; ++i) {
    expected += message("news", std::to_string(i)) + "*4\r\n$8\r\npmessage\r\n" + bulk("n*") + bulk("news") +
                bulk(std::to_string(i));
  }
  CHECK(sub.read_exact(expected.size()) == expected);
  const std::string sharded = "*3\r\n$10\r\nssubscribe\r\n" + bulk("s") + ":1\r\n";
  CHECK(sub.call(resp({"SSUBSCRIBE", "s"}), sharded.size()) == sharded);
  CHECK(pub.call(resp({"SPUBLISH", "s", "x"}), 4) == ":1\r\n");
  const std::string smessage = "*3\r\n$8\r\nsmessage\r\n" + bulk("s") + bulk("x");
  CHECK(sub.read_exact(smessage.size()) == smessage);
  CHECK(sub.call(resp({"RESET"}), 8) == "+RESET\r\n");
  CHECK(sub.call(resp({"GET", "k"}), 5) == "$-1\r\n");  // back to normal, still served
  CHECK(pub.call(resp({"PUBLISH", "news", "late"}), 4) == ":0\r\n");
  CHECK(sub.call(resp({"SUBSCRIBE", "news"}), confirm("subscribe", "news", 1).size()) ==
        confirm("subscribe", "news", 1));
  CHECK(sub.call(resp({"QUIT"}), 5) == "+OK\r\n");
  CHECK(sub.read_available().empty());
  CHECK(sub.closed());
  CHECK(wait_numsub(pub, "news", 0));  // the closed subscriber left its channel
}

TEST_CASE("redis-cli subscribe prints the messages it is sent", "[kv][e2e][pubsub]") {
  Target t = pick_target();
  INFO(t.describe());
  if (!kve2e::have_redis_cli()) {
    WARN("redis-cli not found (apt-get install redis-tools): skipped");
    return;
  }
  ServerProcess server(t.exe, t.backend, t.args());
  std::string out;
  std::thread cli([&] {
    // Bounded: redis-cli waits for messages forever, `timeout` ends it.
    std::string cmd = "timeout 2 redis-cli -p " + std::to_string(server.port()) + " subscribe news 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[4096];
    std::size_t n = 0;
    while (p != nullptr && (n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    if (p != nullptr) ::pclose(p);
  });
  Client pub(server.port());
  CHECK(wait_numsub(pub, "news", 1));
  CHECK(pub.call(resp({"PUBLISH", "news", "hello world"}), 4) == ":1\r\n");
  cli.join();
  // redis-cli's raw output (stdout is a pipe): the confirmation, then the message.
  CHECK(out == "subscribe\nnews\n1\nmessage\nnews\nhello world\n");
}

TEST_CASE("a subscriber that never reads is dropped at the hard limit, the publisher unharmed", "[kv][e2e][pubsub]") {
  Target t = pick_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args());
  Client pub(server.port());
  CHECK(pub.call(resp({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 256kb 0 0"}), 5) == "+OK\r\n");
  Client sub(server.port(), 4096);
  CHECK(sub.call(resp({"SUBSCRIBE", "c"}), confirm("subscribe", "c", 1).size()) == confirm("subscribe", "c", 1));
  const std::string text(4000, 'x');
  int delivered = 0;
  int replies = 0;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) {  // 4 MB: far past the limit and every socket buffer
    std::string r = pub.call(resp({"PUBLISH", "c", text}), 4);
    replies += r == ":1\r\n" || r == ":0\r\n" ? 1 : 0;
    delivered += r == ":1\r\n" ? 1 : 0;
  }
  auto took = std::chrono::steady_clock::now() - started;
  CHECK(replies == 1000);
  CHECK(delivered > 0);
  CHECK(delivered < 1000);  // dropped somewhere past 256 KiB plus what the sockets hold
  CHECK(took < std::chrono::seconds(10));
  CHECK(wait_numsub(pub, "c", 0));
  std::string rest = sub.read_available(2000);  // whatever was in flight, then the close
  CHECK(sub.closed());
  CHECK(rest.size() < 4 * 1024 * 1024);
  CHECK(server.rss_kib() < 200 * 1024);
}

TEST_CASE("a slow reader gets every byte of a publish burst in order", "[kv][e2e][pubsub]") {
  Target t = pick_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args());
  Client sub(server.port(), 8192);
  Client pub(server.port());
  CHECK(sub.call(resp({"SUBSCRIBE", "c"}), confirm("subscribe", "c", 1).size()) == confirm("subscribe", "c", 1));
  std::string burst;
  std::string expected;
  // ~20 MB of pushes of varied sizes in one pipeline: more than the server's
  // socket send buffer can absorb (it grows to tcp_wmem's 4 MB), so the
  // subscriber's sends are in flight, waiting on the reader, while most of the
  // pushes land.
  constexpr int count = 5000;
  for (int i = 0; i < count; ++i) {
    std::string text = std::to_string(i) + std::string(static_cast<std::size_t>(i * 7 % 8000), 'a' + i % 26);
    burst += resp({"PUBLISH", "c", text});
    expected += message("c", text);
  }
  std::thread writer([&] { pub.send(burst); });
  std::string got;
  while (got.size() < expected.size()) {  // read in small sips, sleeping between them
    std::string part = sub.read_exact(std::min<std::size_t>(64 * 1024, expected.size() - got.size()), 5000);
    if (part.empty()) break;
    got += part;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  writer.join();
  CHECK(got.size() == expected.size());
  CHECK(got == expected);
  std::string replies;
  for (int i = 0; i < count; ++i) replies += ":1\r\n";
  CHECK(pub.read_exact(replies.size()) == replies);
}

TEST_CASE("a subscriber's own commands and the pushes to it interleave whole", "[kv][e2e][pubsub]") {
  Target t = pick_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args());
  Client sub(server.port()), pub(server.port());
  CHECK(sub.call(resp({"SUBSCRIBE", "c"}), confirm("subscribe", "c", 1).size()) == confirm("subscribe", "c", 1));
  const std::string pong = "*2\r\n$4\r\npong\r\n$0\r\n\r\n";
  const std::string pushed = message("c", "msg");
  std::string pings, publishes;
  for (int i = 0; i < 1000; ++i) {
    pings += resp({"PING"});
    publishes += resp({"PUBLISH", "c", "msg"});
  }
  std::thread publisher([&] { pub.send(publishes); });
  sub.send(pings);
  std::string got = sub.read_exact(1000 * (pong.size() + pushed.size()));
  publisher.join();
  int pongs = 0, messages = 0;
  for (std::size_t at = 0; at < got.size();) {  // each reply whole, in some interleaving
    if (got.compare(at, pong.size(), pong) == 0) {
      ++pongs, at += pong.size();
    } else if (got.compare(at, pushed.size(), pushed) == 0) {
      ++messages, at += pushed.size();
    } else {
      FAIL("unexpected bytes at " << at << ": " << got.substr(at, 40));
    }
  }
  CHECK(pongs == 1000);
  CHECK(messages == 1000);
  CHECK(pub.read_exact(4000) == [] {
    std::string r;
    for (int i = 0; i < 1000; ++i) r += ":1\r\n";
    return r;
  }());
}

TEST_CASE("SIGTERM stops the server cleanly with subscribers connected, one stuck mid-send", "[kv][e2e][pubsub]") {
  Target t = pick_target();
  INFO(t.describe());
  ServerProcess server(t.exe, t.backend, t.args());
  Client a(server.port()), b(server.port(), 4096), pub(server.port());
  CHECK(a.call(resp({"SUBSCRIBE", "c"}), confirm("subscribe", "c", 1).size()) == confirm("subscribe", "c", 1));
  CHECK(b.call(resp({"PSUBSCRIBE", "*"}), confirm("psubscribe", "*", 1).size()) == confirm("psubscribe", "*", 1));
  // b never reads: 8 MB of pushes (under the 32 MB hard limit) leave its send
  // in flight when the stop comes; a reads only at the end.
  const std::string text(8000, 'x');
  for (int i = 0; i < 1000; ++i) CHECK(pub.call(resp({"PUBLISH", "c", text}), 4) == ":2\r\n");
  CHECK(server.terminate() == 0);
  a.read_available();  // what was sent before the stop, then the close
  CHECK(a.closed());
}
