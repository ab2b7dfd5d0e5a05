// duet hook internals: the real libc functions, found with dlsym(RTLD_NEXT, name).
//
// Contract: real() returns the table, resolving it on first use (and from a
// load-time constructor, so it is ready before main and before any thread).
// A name that cannot be resolved aborts with a message: the hook library
// cannot work without libc underneath it.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

namespace duet::fiber::hook {

struct RealCalls {
  int (*socket)(int, int, int);
  int (*connect)(int, const sockaddr*, socklen_t);
  int (*accept)(int, sockaddr*, socklen_t*);
  int (*accept4)(int, sockaddr*, socklen_t*, int);
  ssize_t (*read)(int, void*, size_t);
  ssize_t (*write)(int, const void*, size_t);
  ssize_t (*readv)(int, const iovec*, int);
  ssize_t (*writev)(int, const iovec*, int);
  ssize_t (*recv)(int, void*, size_t, int);
  ssize_t (*send)(int, const void*, size_t, int);
  ssize_t (*recvfrom)(int, void*, size_t, int, sockaddr*, socklen_t*);
  ssize_t (*sendto)(int, const void*, size_t, int, const sockaddr*, socklen_t);
  ssize_t (*recvmsg)(int, msghdr*, int);
  ssize_t (*sendmsg)(int, const msghdr*, int);
  int (*poll)(pollfd*, nfds_t, int);
  int (*ppoll)(pollfd*, nfds_t, const timespec*, const sigset_t*);
  int (*select)(int, fd_set*, fd_set*, fd_set*, timeval*);
  int (*pselect)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*);
  int (*epoll_wait)(int, epoll_event*, int, int);
  int (*epoll_pwait)(int, epoll_event*, int, int, const sigset_t*);
  int (*close)(int);
  int (*dup)(int);
  int (*dup2)(int, int);
  int (*dup3)(int, int, int);
  int (*fcntl)(int, int, ...);
  int (*setsockopt)(int, int, int, const void*, socklen_t);
  unsigned (*sleep)(unsigned);
  int (*usleep)(useconds_t);
  int (*nanosleep)(const timespec*, timespec*);
  int (*clock_nanosleep)(clockid_t, int, const timespec*, timespec*);
};

const RealCalls& real() noexcept;

}  // namespace duet::fiber::hook
