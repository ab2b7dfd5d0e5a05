// kv_threads: the KV core behind one OS thread per connection and blocking
// sockets — the oldest server shape, as a baseline for the two voices.
// The core is single-threaded by contract, so every touch of it (sessions,
// admission, the expiry tick) happens under one mutex; only the blocking
// recv/send calls run outside it. A stop (signal or SHUTDOWN, seen by the
// ticker) shuts every socket down so the blocked threads return.
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "baseline_socket.hpp"
#include "duet/io/socket_ops.hpp"
#include "kv/server_runtime.hpp"
#include "kv/session.hpp"

namespace {

using duet::kv::ServerRuntime;

struct Shared {
  ServerRuntime& rt;
  std::mutex mutex;  // guards the KV core and everything below
  std::condition_variable all_gone;
  std::set<int> fds;
  bool stopping = false;
};

bool send_all(int fd, std::string_view out) {
  while (!out.empty()) {
    ssize_t n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    out.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void serve(Shared& shared, int fd) {
  std::unique_lock lock(shared.mutex);
  {
    duet::kv::Session session(shared.rt.state(), fd);
    for (;;) {
      std::string_view out = session.output();  // only this thread touches the session's buffers
      lock.unlock();
      bool sent = send_all(fd, out);
      lock.lock();
      if (!sent) break;
      session.consume_output(out.size());
      if (session.closing()) break;
      if (!session.wants_input()) {
        session.process();
        continue;
      }
      auto space = session.input_space();
      lock.unlock();
      ssize_t n = ::recv(fd, space.data(), space.size(), 0);
      lock.lock();
      if (n <= 0) break;
      session.commit_input(static_cast<std::size_t>(n));
    }
  }
  shared.rt.on_disconnect();
  shared.fds.erase(fd);
  ::close(fd);
  if (shared.fds.empty()) shared.all_gone.notify_all();
}

void tick_until_stop(Shared& shared, int listener) {
  for (;;) {
    std::this_thread::sleep_for(shared.rt.tick_interval());
    std::lock_guard lock(shared.mutex);
    if (!shared.rt.tick()) continue;
    shared.stopping = true;
    ::shutdown(listener, SHUT_RDWR);  // wakes the blocked accept
    for (int fd : shared.fds) ::shutdown(fd, SHUT_RDWR);
    return;
  }
}

void accept_loop(Shared& shared, int listener) {
  for (;;) {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    std::unique_lock lock(shared.mutex);
    if (shared.stopping) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      auto pause = shared.rt.on_accept_error(std::error_code(errno, std::generic_category()), listener);
      lock.unlock();
      std::this_thread::sleep_for(pause);
      continue;
    }
    if (!shared.rt.admit(fd)) {
      ::close(fd);
      continue;
    }
    shared.fds.insert(fd);
    std::thread(serve, std::ref(shared), fd).detach();
  }
}

}  // namespace

int main(int argc, char** argv) {
  return ServerRuntime::main(argc, argv, "threads", [](ServerRuntime& rt) {
    int listener = duet::baseline::listen_socket(rt.listen_address(), 0);
    rt.on_listening(duet::local_address_of(listener));
    Shared shared{rt, {}, {}, {}, false};
    std::thread ticker(tick_until_stop, std::ref(shared), listener);
    accept_loop(shared, listener);
    ticker.join();
    std::unique_lock lock(shared.mutex);
    shared.all_gone.wait(lock, [&] { return shared.fds.empty(); });
    ::close(listener);
    rt.on_stopped();
    return 0;
  });
}
