// duet — the stackless voice in one header: Task<T> and its combinators, the
// coordination primitives, sockets, files, host names, TLS streams, the HTTP/1.1
// parser and writer, the WebSocket protocol core, the runtime of many cores with
// its stackless calls, and the I/O layer under them.
//
//   #include <duet/task.hpp>
//   duet::Task<int> answer() { co_return 42; }
//   int main() { return duet::sync_wait(answer()) == 42 ? 0 : 1; }
//
// <duet/stackful.hpp> is the same for fibers; <duet/duet.hpp> is both voices
// and the bridge between them.
#pragma once

#include "duet/io/backend.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/mutex_guard.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/runtime/shard.hpp"
#include "duet/runtime/shard_set.hpp"
#include "duet/http/http_date.hpp"
#include "duet/http/http_error.hpp"
#include "duet/http/request_parser.hpp"
#include "duet/http/response_parser.hpp"
#include "duet/http/response_writer.hpp"
#include "duet/http/request_writer.hpp"
#include "duet/http/url.hpp"
#include "duet/http/websocket_handshake.hpp"
#include "duet/http/websocket_options.hpp"
#include "duet/http/websocket_session.hpp"
#include "duet/task/buffered.hpp"
#include "duet/task/channel.hpp"
#include "duet/task/event.hpp"
#include "duet/task/file.hpp"
#include "duet/task/http_client.hpp"
#include "duet/task/http_server.hpp"
#include "duet/task/latch.hpp"
#include "duet/task/mutex.hpp"
#include "duet/task/offload.hpp"
#include "duet/task/on_shard.hpp"
#include "duet/task/resolve.hpp"
#include "duet/task/resume_on.hpp"
#include "duet/task/run.hpp"
#include "duet/task/semaphore.hpp"
#include "duet/task/signal_set.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/sync_wait.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/tls_stream.hpp"
#include "duet/task/udp_socket.hpp"
#include "duet/task/websocket.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/when_any.hpp"
#include "duet/task/when_first_ok.hpp"
#include "duet/task/with_timeout.hpp"
