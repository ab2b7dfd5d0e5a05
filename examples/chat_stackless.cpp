// chat_stackless — a TCP chat room in the stackless voice.
//
//   chat_stackless [--port 7000] [--backend io_uring|epoll]
//   nc 127.0.0.1 7000          (in a few terminals: each line reaches the others)
//
// Every line a client sends goes to every other client, never back to it.
// Each client has a bounded outbox (a Channel of queue_lines lines) that its
// own writer task drains; the room fills outboxes with try_send, which never
// waits, so a client that stops reading is dropped once its outbox is full and
// nobody else stalls. A line longer than max_line bytes drops its sender too,
// so a client costs at most queue_lines * max_line bytes, plus its socket's
// send buffer, which the session caps (the kernel would grow it to tcp_wmem's
// maximum, 4 MiB by default). SIGINT or SIGTERM stops every session, then the
// program returns.
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chat_room.hpp"

#include <duet/io/event_loop.hpp>
#include <duet/task/buffered.hpp>
#include <duet/task/channel.hpp>
#include <duet/task/run.hpp>
#include <duet/task/signal_set.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tcp_stream.hpp>
#include <duet/task/when_any.hpp>

namespace {

constexpr int kernel_buffer = 64 * 1024;  // SO_SNDBUF: else the kernel buffers up to 4 MiB per client
using chat::Line;
using chat::max_line;
using Client = chat::Member<duet::Channel<chat::Line>>;
using Room = chat::Room<Client>;

duet::Task<void> read_lines(Room& room, Client& me, duet::TcpStream& conn, std::stop_token stop) {
  duet::BufferedReader in(conn);
  while (auto line = co_await in.read_until('\n', max_line + 1, stop)) {  // the line with its '\n'
    room.broadcast(me, std::make_shared<const std::string>(*line));
  }  // EOF, error, stop, or a line too long (message_size): drop the client
}

// Lines queued while the last batch was sent go out together, in one send.
duet::Task<void> write_lines(Client& me, duet::TcpStream& conn, std::stop_token stop) {
  duet::BufferedWriter out(conn);
  while (auto line = co_await me.outbox_.recv(stop)) {
    do {
      if (!co_await out.write(**line, stop)) co_return;
    } while ((line = me.outbox_.try_recv()));
    if (!co_await out.flush(stop)) co_return;
  }
}

// Whichever of reader and writer ends first stops the other.
duet::Task<void> session(Room& room, duet::TcpStream conn) {
  Client me(conn.loop());
  ::setsockopt(conn.native_handle(), SOL_SOCKET, SO_SNDBUF, &kernel_buffer, sizeof(kernel_buffer));
  room.join(me);
  co_await duet::when_any(me.stop_, read_lines(room, me, conn, me.stop_.get_token()),
                          write_lines(me, conn, me.stop_.get_token()));
  room.leave(me);
}

duet::Task<void> accept_clients(duet::EventLoop& loop, duet::TcpListener& listener, Room& room,
                                duet::TaskScope& scope, std::stop_token stop) {
  while (!stop.stop_requested()) {
    auto conn = co_await listener.accept(stop);
    if (conn) {
      scope.spawn(session(room, std::move(*conn)));
    } else if (conn.error() == std::errc::too_many_files_open) {
      co_await duet::sleep_for(loop, std::chrono::milliseconds(10), stop);  // back off, do not spin
    }
  }
}

duet::Task<void> serve(duet::EventLoop& loop, duet::SignalSet& signals, Room& room, std::uint16_t port) {
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(port));
  std::printf("chat on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  duet::TaskScope scope;
  std::stop_source stop;
  co_await duet::when_any(stop, accept_clients(loop, listener, room, scope, stop.get_token()),
                          signals.wait_task(stop.get_token()));  // SIGINT or SIGTERM ends the accepts
  room.close();
  co_await scope.join();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 7000;
  duet::Backend backend = duet::Backend::io_uring;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--port") port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
    if (flag == "--backend") backend = duet::parse_backend(argv[i + 1]).value_or(backend);
  }
  Room room;  // outlives every session
  duet::EventLoop loop(backend);
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});  // blocked, then read through the loop
  duet::run_until_complete(loop, serve(loop, signals, room, port));
  std::printf("chat stopped\n");
}
