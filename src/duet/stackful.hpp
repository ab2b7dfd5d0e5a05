// duet — the stackful voice in one header: fibers and their Scheduler, the
// coordination primitives, blocking sockets, files, host names, TLS streams, the
// HTTP/1.1 parser and writer, the WebSocket protocol core, the runtime of many
// cores with its fiber calls, and the I/O layer under them.
//
//   #include <duet/stackful.hpp>
//   int main() {
//     duet::fiber::Scheduler scheduler;
//     scheduler.spawn([] { duet::fiber::sleep_for(std::chrono::milliseconds(1)); });
//     scheduler.run();
//   }
//
// <duet/task.hpp> is the same for tasks; <duet/duet.hpp> is both voices and the
// bridge between them.
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
#include "duet/stackful/buffered.hpp"
#include "duet/stackful/channel.hpp"
#include "duet/stackful/event.hpp"
#include "duet/stackful/fiber.hpp"
#include "duet/stackful/file.hpp"
#include "duet/stackful/http_client.hpp"
#include "duet/stackful/http_server.hpp"
#include "duet/stackful/latch.hpp"
#include "duet/stackful/mutex.hpp"
#include "duet/stackful/offload.hpp"
#include "duet/stackful/on_shard.hpp"
#include "duet/stackful/resolve.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/semaphore.hpp"
#include "duet/stackful/signal_set.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/stack.hpp"
#include "duet/stackful/stack_pool.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/tls_stream.hpp"
#include "duet/stackful/udp_socket.hpp"
#include "duet/stackful/websocket.hpp"
#include "duet/stackful/when_any.hpp"
#include "duet/stackful/when_first_ok.hpp"
#include "duet/stackful/with_timeout.hpp"
