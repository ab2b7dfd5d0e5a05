// libduet_hook — run unmodified blocking socket code (hiredis, plain read/write) inside fibers.
//
// Contract
// - A shared library that interposes, through dlsym(RTLD_NEXT, ...): socket,
//   connect, accept, accept4, read, write, readv, writev, recv, send,
//   recvfrom, sendto, recvmsg, sendmsg, poll, ppoll, select, pselect,
//   epoll_wait, epoll_pwait, close, dup, dup2, dup3, fcntl, setsockopt, sleep,
//   usleep, nanosleep, clock_nanosleep. Use it with LD_PRELOAD=libduet_hook.so, or link it
//   (before libc, which the compiler driver does anyway) and call
//   duet_hook_installed() once so the linker keeps it (--as-needed).
// - Active only on a fiber of a running duet::fiber::Scheduler on the calling
//   thread; everywhere else every call goes straight to libc.
// - Only sockets made by the hooked socket/accept/accept4 are managed; other
//   fds (regular files, pipes, ttys, eventfds) always pass through.
// - A managed socket is non-blocking in the kernel (so the loop can drive it)
//   while the program keeps its own view: fcntl(F_GETFL/F_SETFL) reads and
//   writes the *user's* O_NONBLOCK. A call the user made blocking blocks only
//   the fiber (waiting on a poll IoOp); one the user made non-blocking (or
//   MSG_DONTWAIT) returns EAGAIN as usual. Off fibers, a blocking call on a
//   socket that a fiber turned non-blocking is emulated with the real poll.
// - Duplicates (dup, dup2, dup3, fcntl F_DUPFD/F_DUPFD_CLOEXEC) of a managed
//   socket are managed too and share its state, as POSIX has it for one open
//   file description: O_NONBLOCK set through one fd shows through all. dup2 or
//   dup3 onto a managed socket drops its old state (and the loop forgets it);
//   a duplicate of anything else is not managed.
// - A blocking stream socket moves every byte, as in Linux: write, writev,
//   send, sendto and sendmsg return once all of the data is queued, recv,
//   recvfrom and recvmsg with MSG_WAITALL once the buffer is full or the peer
//   ended the stream; a timeout or error after some bytes returns their count.
//   (MSG_WAITALL with MSG_PEEK returns what is there: a peek cannot go on.)
// - SO_RCVTIMEO / SO_SNDTIMEO (once the kernel has accepted them) become the
//   call's timeout: the call fails with EAGAIN (connect: EINPROGRESS) when it
//   expires with nothing moved, as Linux does; a negative tv_sec fails it at
//   once, as in Linux.
// - poll, ppoll, select, pselect, epoll_wait and epoll_pwait on a fiber wait
//   on the fiber for any fd (not only managed sockets); their signal mask
//   applies to a first look with timeout 0 only. poll with no fd to watch and
//   no timeout never returns (a pause). close and dup2/dup3 make the loop
//   forget an fd the hooks gave it, before the number can name another file.
// - sleep/usleep/nanosleep/clock_nanosleep (wall or monotonic clocks) on a
//   fiber sleep that fiber only; an invalid timespec fails with EINVAL.
// - Signals do not interrupt a fiber's wait (no EINTR): the handler runs on
//   the thread, and the wait goes on.
// - Limitations: an fd closed or duplicated behind libc's back (e.g. inside
//   fclose, or libc's own internal dup calls) is not seen; only calls through
//   the PLT update the table (so an fd closed that way and polled before may
//   leave a stale registration in the epoll backend). Neither are fds
//   received over SCM_RIGHTS, ioctl(FIONBIO), or the state of an fd above
//   131071. An fd the hooks gave one thread's loop and closed on another
//   thread is forgotten only by the closing thread's loop.
//
//   // link: executable(..., dependencies : duet_hook_dep)
//   duet_hook_installed();                         // keeps the library linked
//   scheduler.spawn([] { redisContext* c = redisConnect("127.0.0.1", 6379); ... });
#pragma once

extern "C" {
// 1 once the library is loaded and has resolved the real functions.
int duet_hook_installed(void);
}
