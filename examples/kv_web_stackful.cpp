// kv_web_stackful — the web server of duet's design notes, stackful voice:
// an HTTP endpoint that queries the KV server for every request through
// plain blocking hiredis (kv_web/hiredis_pool.hpp), which libduet_hook turns
// into fiber waits: each request's fiber blocks, the others run.
//
//   kv_web_stackful [--port 8080] [--backend io_uring|epoll] [--kv-port 6379]
//   curl -X PUT --data-binary red http://127.0.0.1:8080/kv/apple    # 204
//   curl http://127.0.0.1:8080/kv/apple                             # 200 red
//
// The same routes and answers as kv_web_stackless. One thread; SIGINT/SIGTERM
// stops it gracefully.
#include <csignal>
#include <cstdio>
#include <string>

#include <duet/http/route_table.hpp>
#include <duet/stackful/http_server.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/signal_set.hpp>
#include <duet/stackful/this_fiber.hpp>

#include "ensure_hooks.hpp"
#include "kv_web/hiredis_pool.hpp"
#include "server_flags.hpp"

namespace {

using duet::http::Request;
using duet::http::Response;

Response kv_call(Request& req, HiredisPool& kv, std::string_view verb) {
  const auto key = duet::http::percent_decode(req.param("key"));
  if (!key) return Response::text(400, "a bad %-escape in the key\n");
  const std::string_view body = req.body();
  ReplyPtr reply = verb == "SET" ? kv.command("SET %b %b", key->data(), key->size(), body.data(), body.size())
                                 : kv.command(verb == "GET" ? "GET %b" : "DEL %b", key->data(), key->size());
  if (!reply) return Response::text(502, "the KV server failed: no connection\n");
  if (reply->type == REDIS_REPLY_ERROR) return Response::text(502, "the KV server failed: " + std::string(reply->str, reply->len) + "\n");
  if (verb == "GET") {
    if (reply->type == REDIS_REPLY_NIL) return Response::text(404, "no such key\n");
    return Response::text(200, std::string(reply->str, reply->len), "application/octet-stream");
  }
  if (verb == "DEL" && reply->integer == 0) return Response::text(404, "no such key\n");
  return Response::empty(204);
}

}  // namespace

int main(int argc, char** argv) {
  examples::ensure_hooks(argv);
  const auto flags = examples::parse_server_flags(argc, argv, 8080, "kv_web_stackful");
  if (flags.threads != 1) examples::usage("kv_web_stackful", "one thread only (--threads 1)");
  // hiredis and OpenSSL-free RESP parsing want more than the default stack.
  duet::fiber::Scheduler scheduler({.backend = flags.backend, .stack_size = 256 * 1024});
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});
  HiredisPool kv("127.0.0.1", flags.kv_port);
  duet::fiber::HttpServer server;
  server.get("/kv/{key}", [&kv](Request& req) { return kv_call(req, kv, "GET"); });
  server.put("/kv/{key}", [&kv](Request& req) { return kv_call(req, kv, "SET"); });
  server.del("/kv/{key}", [&kv](Request& req) { return kv_call(req, kv, "DEL"); });
  scheduler.spawn([&] {
    auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::any(flags.port));
    std::printf("kv_web on port %u (%s, KV on 127.0.0.1:%u)\n", listener.local_address().port(),
                duet::backend_name(flags.backend).data(), flags.kv_port);
    std::fflush(stdout);
    std::stop_source stop;
    auto stopper = duet::fiber::spawn([&] {
      (void)signals.wait();
      stop.request_stop();
    });
    server.serve(listener, stop.get_token());
    stopper.join();
  }).join();
}
