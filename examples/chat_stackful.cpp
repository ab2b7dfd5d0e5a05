// chat_stackful — a TCP chat room in the stackful voice.
//
//   chat_stackful [--port 7000] [--backend io_uring|epoll]
//   nc 127.0.0.1 7000          (in a few terminals: each line reaches the others)
//
// Every line a client sends goes to every other client, never back to it.
// Each client has a bounded outbox (a Channel of queue_lines lines) that its
// own writer fiber drains; the room fills outboxes with try_send, which never
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
#include <duet/stackful/buffered.hpp>
#include <duet/stackful/channel.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/signal_set.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/stackful/when_any.hpp>

namespace {

constexpr int kernel_buffer = 64 * 1024;  // SO_SNDBUF: else the kernel buffers up to 4 MiB per client
using chat::Line;
using chat::max_line;
using Client = chat::Member<duet::fiber::Channel<chat::Line>>;
using Room = chat::Room<Client>;

void read_lines(Room& room, Client& me, duet::fiber::TcpStream& conn, std::stop_token stop) {
  duet::fiber::BufferedReader in(conn);
  while (auto line = in.read_until('\n', max_line + 1, stop)) {  // the line with its '\n'
    room.broadcast(me, std::make_shared<const std::string>(*line));
  }  // EOF, error, stop, or a line too long (message_size): drop the client
}

// Lines queued while the last batch was sent go out together, in one send.
void write_lines(Client& me, duet::fiber::TcpStream& conn, std::stop_token stop) {
  duet::fiber::BufferedWriter out(conn);
  while (auto line = me.outbox_.recv(stop)) {
    do {
      if (!out.write(**line, stop)) return;
    } while ((line = me.outbox_.try_recv()));
    if (!out.flush(stop)) return;
  }
}

// Whichever of reader and writer ends first stops the other.
void session(Room& room, duet::fiber::TcpStream conn) {
  Client me;
  ::setsockopt(conn.native_handle(), SOL_SOCKET, SO_SNDBUF, &kernel_buffer, sizeof(kernel_buffer));
  room.join(me);
  duet::fiber::when_any(me.stop_.get_token(), [&](std::stop_token stop) { read_lines(room, me, conn, stop); },
                        [&](std::stop_token stop) { write_lines(me, conn, stop); });
  room.leave(me);
}

void accept_clients(duet::fiber::TcpListener& listener, Room& room, std::stop_token stop) {
  while (!stop.stop_requested()) {
    auto conn = listener.accept(stop);
    if (conn) {
      duet::fiber::spawn(session, std::ref(room), std::move(*conn)).detach();
    } else if (conn.error() == std::errc::too_many_files_open) {
      duet::fiber::sleep_for(std::chrono::milliseconds(10), stop);  // back off, do not spin
    }
  }
}

void serve(duet::EventLoop& loop, duet::fiber::SignalSet& signals, Room& room, std::uint16_t port) {
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::any(port));
  std::printf("chat on port %u (%s)\n", listener.local_address().port(), duet::backend_name(loop.backend()).data());
  std::fflush(stdout);
  duet::fiber::when_any([&](std::stop_token stop) { accept_clients(listener, room, stop); },
                        [&](std::stop_token stop) { return signals.wait(stop); });  // SIGINT or SIGTERM
  room.close();
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
  duet::fiber::Scheduler scheduler({.backend = backend});
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});  // blocked, then read through the loop
  scheduler.spawn(serve, std::ref(scheduler.loop()), std::ref(signals), std::ref(room), port).detach();
  scheduler.run();
  std::printf("chat stopped\n");
}
