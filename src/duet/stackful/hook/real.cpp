#include "duet/stackful/hook/real.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace duet::fiber::hook {

namespace {

template <typename Fn>
void resolve(Fn& slot, const char* name) noexcept {
  void* symbol = ::dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) {
    // Raw system calls: write() itself is hooked and not resolved yet.
    static const char prefix[] = "duet_hook: cannot find the real ";
    ::syscall(SYS_write, STDERR_FILENO, prefix, sizeof prefix - 1);
    ::syscall(SYS_write, STDERR_FILENO, name, std::strlen(name));
    ::syscall(SYS_write, STDERR_FILENO, "\n", 1);
    std::abort();
  }
  slot = reinterpret_cast<Fn>(symbol);
}

RealCalls load() noexcept {
  RealCalls calls{};
  resolve(calls.socket, "socket");
  resolve(calls.connect, "connect");
  resolve(calls.accept, "accept");
  resolve(calls.accept4, "accept4");
  resolve(calls.read, "read");
  resolve(calls.write, "write");
  resolve(calls.readv, "readv");
  resolve(calls.writev, "writev");
  resolve(calls.recv, "recv");
  resolve(calls.send, "send");
  resolve(calls.recvfrom, "recvfrom");
  resolve(calls.sendto, "sendto");
  resolve(calls.recvmsg, "recvmsg");
  resolve(calls.sendmsg, "sendmsg");
  resolve(calls.poll, "poll");
  resolve(calls.ppoll, "ppoll");
  resolve(calls.select, "select");
  resolve(calls.pselect, "pselect");
  resolve(calls.epoll_wait, "epoll_wait");
  resolve(calls.epoll_pwait, "epoll_pwait");
  resolve(calls.close, "close");
  resolve(calls.dup, "dup");
  resolve(calls.dup2, "dup2");
  resolve(calls.dup3, "dup3");
  resolve(calls.fcntl, "fcntl");
  resolve(calls.setsockopt, "setsockopt");
  resolve(calls.sleep, "sleep");
  resolve(calls.usleep, "usleep");
  resolve(calls.nanosleep, "nanosleep");
  resolve(calls.clock_nanosleep, "clock_nanosleep");
  return calls;
}

[[gnu::constructor]] void resolve_at_load() noexcept { (void)real(); }

}  // namespace

const RealCalls& real() noexcept {
  static const RealCalls calls = load();
  return calls;
}

}  // namespace duet::fiber::hook
