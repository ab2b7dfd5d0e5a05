// Helpers for the SignalSet tests: the calling thread's mask and pending set,
// and a process-directed send. Those tests run in executables of their own,
// single-threaded, so a signal blocked in the test's thread is blocked in
// every thread of the process (a thread that did not block it would take it).
//
//   REQUIRE_FALSE(duet::test::blocked(SIGUSR1));
//   duet::test::send_to_process(SIGUSR1);
#pragma once

#include <catch2/catch.hpp>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace duet::test {

inline bool blocked(int signo) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, signo) == 1;
}

inline bool pending(int signo) {
  sigset_t set;
  sigpending(&set);
  return sigismember(&set, signo) == 1;
}

inline void send_to_process(int signo) { REQUIRE(::kill(::getpid(), signo) == 0); }

}  // namespace duet::test
