// kv_web_stackless — the web server of duet's design notes, stackless voice:
// an HTTP endpoint that queries the KV server for every request, each wait a
// co_await (the KV server through kv_web/resp_client.hpp, a small RESP client).
//
//   kv_web_stackless [--port 8080] [--backend io_uring|epoll] [--kv-port 6379]
//   curl -X PUT --data-binary red http://127.0.0.1:8080/kv/apple    # 204
//   curl http://127.0.0.1:8080/kv/apple                             # 200 red
//
// GET /kv/<key>: 200 and the value, or 404. PUT /kv/<key>: the body becomes
// the value, 204. DELETE /kv/<key>: 204, or 404. The key is percent-decoded
// (400 if it cannot be); a KV server that fails or cannot be reached: 502.
// One thread; SIGINT/SIGTERM stops it gracefully.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <duet/http/route_table.hpp>
#include <duet/io/event_loop.hpp>
#include <duet/task/http_server.hpp>
#include <duet/task/run.hpp>
#include <duet/task/signal_set.hpp>
#include <duet/task/when_all.hpp>

#include "kv_web/resp_client.hpp"
#include "server_flags.hpp"

namespace {

using duet::http::Request;
using duet::http::Response;

Response kv_failed(const std::string& why) { return Response::text(502, "the KV server failed: " + why + "\n"); }

duet::Task<Response> kv_call(Request& req, RespPool& kv, std::string_view verb) {
  const auto key = duet::http::percent_decode(req.param("key"));
  if (!key) co_return Response::text(400, "a bad %-escape in the key\n");
  // Named, not braced inside co_await: GCC 12 destroys such temporaries twice.
  std::vector<std::string_view> args{verb, *key};
  if (verb == "SET") args.push_back(req.body());
  duet::IoResult<RespReply> reply = co_await kv.command(args, req.stop_token());
  if (!reply) co_return kv_failed(reply.error().message());
  if (reply->kind == RespReply::Kind::error) co_return kv_failed(reply->text);
  if (verb == "GET") {
    if (reply->kind == RespReply::Kind::nil) co_return Response::text(404, "no such key\n");
    co_return Response::text(200, std::move(reply->text), "application/octet-stream");
  }
  if (verb == "DEL" && reply->integer == 0) co_return Response::text(404, "no such key\n");
  co_return Response::empty(204);
}

duet::Task<void> stop_on_signal(duet::SignalSet& signals, std::stop_source& stop) {
  auto signal = co_await signals.wait_task();
  (void)signal;
  stop.request_stop();
}

}  // namespace

int main(int argc, char** argv) {
  const auto flags = examples::parse_server_flags(argc, argv, 8080, "kv_web_stackless");
  if (flags.threads != 1) examples::usage("kv_web_stackless", "one thread only (--threads 1)");
  duet::EventLoop loop(flags.backend);
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});
  RespPool kv(loop, duet::SocketAddress::parse("127.0.0.1", flags.kv_port).value());
  duet::HttpServer server;
  server.get("/kv/{key}", [&kv](Request& req) { return kv_call(req, kv, "GET"); });
  server.put("/kv/{key}", [&kv](Request& req) { return kv_call(req, kv, "SET"); });
  server.del("/kv/{key}", [&kv](Request& req) { return kv_call(req, kv, "DEL"); });
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(flags.port));
  std::printf("kv_web on port %u (%s, KV on 127.0.0.1:%u)\n", listener.local_address().port(),
              duet::backend_name(flags.backend).data(), flags.kv_port);
  std::fflush(stdout);
  std::stop_source stop;
  duet::run_until_complete(loop, duet::when_all(server.serve(listener, stop.get_token()), stop_on_signal(signals, stop)));
}
