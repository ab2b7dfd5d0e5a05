// with_timeout on a named awaiter: it keeps a reference, so it wants the call itself.
// expect: pass the awaiter straight from the call
#include <chrono>

#include <duet/task/tcp_stream.hpp>
#include <duet/task/with_timeout.hpp>

duet::Task<void> wrong(duet::TcpStream& conn) {
  char buf[64];
  auto recv = conn.recv(buf);
  (void)co_await duet::with_timeout(recv, std::chrono::seconds(1));
}
