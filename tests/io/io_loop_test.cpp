// The EventLoop contract itself, with raw IoOps (no coroutines): this is the
// surface the stackful voice builds on. Every test runs on both backends.
#include <catch2/catch.hpp>

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/io/loop_message.hpp"
#include "duet/io/socket_address.hpp"
#include "support/socket_pair.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::EventLoop;
using duet::IoOp;
using duet::OpKind;
using duet::test::SocketPair;

namespace {

// An op that records its result, as a fiber's stack frame would.
struct RecordingOp : IoOp {
  bool done = false;
  int res = 0;
  RecordingOp() {
    complete_ = [](IoOp* op, int r) noexcept {
      auto* self = static_cast<RecordingOp*>(op);
      self->done = true;
      self->res = r;
    };
  }
  // A transfer of len bytes at buf on fd (recv, send, read, write).
  void describe(OpKind kind, int fd, void* buf, std::size_t len) noexcept {
    kind_ = kind;
    fd_ = fd;
    buf_ = buf;
    len_ = len;
  }
};

void run_until(EventLoop& loop, const RecordingOp& op) {
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (!op.done && std::chrono::steady_clock::now() < give_up) loop.run_once(give_up);
}

// A loop with a recv parked on a socket that has nothing to read.
struct ParkedRecv {
  EventLoop loop;
  SocketPair pair;
  char buf[8] = {};
  RecordingOp op;
  explicit ParkedRecv(Backend backend) : loop(backend) {
    op.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
    loop.submit(op);
    loop.run_once();
  }
};

std::atomic<EventLoop*> signal_loop{nullptr};

}  // namespace

TEST_CASE("a raw op completes through complete_ from run_once, never from submit") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketPair pair;
  REQUIRE(::write(pair.fds[1], "hi", 2) == 2);
  char buf[8] = {};
  RecordingOp op;
  op.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
  loop.submit(op);
  CHECK_FALSE(op.done);
  CHECK(loop.in_flight() == 1);
  run_until(loop, op);
  CHECK(op.res == 2);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a cancelled raw op completes with ECANCELED") {
  ParkedRecv parked(GENERATE(Backend::io_uring, Backend::epoll));
  parked.loop.cancel(parked.op);
  run_until(parked.loop, parked.op);
  CHECK(parked.op.res == -ECANCELED);
}

TEST_CASE("a raw op with a timeout completes with ETIMEDOUT") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketPair pair;
  char buf[8];
  RecordingOp op;
  op.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
  op.timeout_ = 20ms;
  const auto start = std::chrono::steady_clock::now();
  loop.submit(op);
  run_until(loop, op);
  CHECK(op.res == -ETIMEDOUT);
  CHECK(std::chrono::steady_clock::now() - start >= 19ms);
}

TEST_CASE("abandon returns only once the op is released and skips complete_") {
  ParkedRecv parked(GENERATE(Backend::io_uring, Backend::epoll));
  EventLoop& loop = parked.loop;
  RecordingOp& op = parked.op;
  CHECK(loop.abandon(op) == -ECANCELED);
  CHECK_FALSE(op.done);
  CHECK(loop.in_flight() == 0);
  loop.run_once();
  CHECK_FALSE(op.done);
}

TEST_CASE("a reader and a writer wait on one fd at the same time") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketPair pair;
  const int big = 1 << 22;
  std::vector<char> out(big, 'x');
  std::vector<char> in(16);
  RecordingOp reader;
  reader.describe(OpKind::recv, pair.fds[0], in.data(), in.size());
  RecordingOp writer;  // far more than the socket buffer: it must wait for space
  writer.describe(OpKind::send, pair.fds[0], out.data(), out.size());
  loop.submit(reader);
  loop.submit(writer);
  loop.run_once();
  REQUIRE(::write(pair.fds[1], "ping", 4) == 4);
  run_until(loop, reader);
  CHECK(reader.res == 4);
  std::vector<char> sink(1 << 20);
  while (!writer.done) {
    [[maybe_unused]] auto n = ::read(pair.fds[1], sink.data(), sink.size());
    loop.run_once(std::chrono::steady_clock::now() + 1ms);
  }
  CHECK(writer.res > 0);
}

TEST_CASE("sleep ops fire in deadline order") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  std::vector<int> order;
  struct Timer : IoOp {
    std::vector<int>* order = nullptr;
    int id = 0;
  };
  Timer timers[4];
  const int delays_ms[4] = {40, 10, 30, 20};
  const auto now = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) {
    timers[i].order = &order;
    timers[i].id = delays_ms[i];
    timers[i].kind_ = OpKind::sleep;
    timers[i].deadline_ = now + std::chrono::milliseconds(delays_ms[i]);
    timers[i].complete_ = [](IoOp* op, int res) noexcept {
      auto* t = static_cast<Timer*>(op);
      if (res == 0) t->order->push_back(t->id);
    };
    loop.submit(timers[i]);
  }
  const auto give_up = now + 5s;
  while (order.size() < 4 && std::chrono::steady_clock::now() < give_up) loop.run_once(give_up);
  CHECK(order == std::vector<int>{10, 20, 30, 40});
}

TEST_CASE("stop from another thread ends run") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  std::thread stopper([&] {
    std::this_thread::sleep_for(30ms);
    loop.stop();
  });
  const auto start = std::chrono::steady_clock::now();
  loop.run();
  stopper.join();
  CHECK(std::chrono::steady_clock::now() - start >= 29ms);
  CHECK_FALSE(loop.stop_requested());
}

// A message that sends itself again every turn: the loop never sleeps, so it
// sees a stop flag on its next turn, before the stopper's wake-up is written.
struct KeepAwake final : duet::LoopMessage {
  bool quitting = false;
  KeepAwake() {
    run_ = [](duet::LoopMessage* m) noexcept {
      if (!static_cast<KeepAwake*>(m)->quitting) EventLoop::current()->send(*m);
    };
  }
};

TEST_CASE("a loop may be destroyed as soon as run() returns while the stop() that ended it is still running") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << duet::backend_name(backend));
  // Each round: the owner turns, a low-priority thread stops it, and the owner
  // destroys the loop right after run() returns. Without the destructor
  // waiting for stop(), its wake-up touches the freed poller (TSan and ASan
  // report it; a plain build rarely notices).
  for (int i = 0; i < 50; ++i) {
    std::atomic<EventLoop*> shared{nullptr};
    std::thread owner([&] {
      EventLoop loop(backend);
      KeepAwake awake;
      loop.send(awake);
      shared = &loop;
      loop.run();
      awake.quitting = true;  // the destructor runs the queued message once more
    });
    EventLoop* loop = nullptr;
    while ((loop = shared.load()) == nullptr) std::this_thread::yield();
    std::thread stopper([loop] {
      sched_param idle{};
      ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &idle);  // easy to preempt inside stop()
      loop->stop();
    });
    stopper.join();
    owner.join();
  }
}

TEST_CASE("stop from a signal handler ends run") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  signal_loop = &loop;
  struct sigaction action {};
  action.sa_handler = [](int) { signal_loop.load()->stop(); };
  struct sigaction previous {};
  REQUIRE(::sigaction(SIGUSR1, &action, &previous) == 0);
  const pthread_t self = ::pthread_self();
  std::thread signaller([self] {
    std::this_thread::sleep_for(20ms);
    ::pthread_kill(self, SIGUSR1);
  });
  loop.run();
  signaller.join();
  ::sigaction(SIGUSR1, &previous, nullptr);
  signal_loop = nullptr;
  CHECK_FALSE(loop.stop_requested());
}

TEST_CASE("an io_uring ring that cannot be set up throws std::system_error") {
  CHECK_THROWS_AS(EventLoop(Backend::io_uring, duet::LoopOptions{1u << 20}), std::system_error);
}

TEST_CASE("socket addresses parse IPv4, IPv6 and localhost") {
  CHECK(duet::SocketAddress::parse("127.0.0.1", 80)->to_string() == "127.0.0.1:80");
  CHECK(duet::SocketAddress::parse("::1", 80)->to_string() == "[::1]:80");
  CHECK(duet::SocketAddress::parse("localhost", 7)->family() == AF_INET);
  CHECK(duet::SocketAddress::parse_endpoint("[::1]:8080")->port() == 8080);
  CHECK_FALSE(duet::SocketAddress::parse("example.com", 80).has_value());
  CHECK_FALSE(duet::SocketAddress::parse_endpoint("1.2.3.4:99999").has_value());
}

TEST_CASE("start finishes a ready op inline on epoll and leaves io_uring ops pending") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketPair pair;
  REQUIRE(::write(pair.fds[1], "hey", 3) == 3);
  char buf[8];
  RecordingOp op;
  op.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
  const int r = loop.start(op);
  if (backend == Backend::epoll) {
    CHECK(r == 3);
    CHECK_FALSE(op.in_flight());
  } else {
    CHECK(r == EventLoop::pending);
    run_until(loop, op);
    CHECK(op.res == 3);
  }
  loop.run_once();
  CHECK(loop.in_flight() == 0);
  RecordingOp waits;  // nothing to read: both backends leave it pending
  waits.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
  CHECK(loop.start(waits) == EventLoop::pending);
  REQUIRE(::write(pair.fds[1], "x", 1) == 1);
  run_until(loop, waits);
  CHECK(waits.res == 1);
}

TEST_CASE("an io_uring ring set up without the newer flags works the same") {
  EventLoop loop(Backend::io_uring, duet::LoopOptions{.ring_entries = 64, .uring_basic_setup = true});
  SocketPair pair;
  char buf[8];
  RecordingOp timed;
  timed.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
  timed.timeout_ = 10ms;
  loop.submit(timed);
  run_until(loop, timed);
  CHECK(timed.res == -ETIMEDOUT);
  RecordingOp read;
  read.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
  loop.submit(read);
  loop.run_once();
  REQUIRE(::write(pair.fds[1], "ok", 2) == 2);
  run_until(loop, read);
  CHECK(read.res == 2);
  std::thread stopper([&] { loop.stop(); });
  loop.run();
  stopper.join();
}

// epoll parks ops per direction; a poll op for both must hear either edge, and
// a read side known to be dry must not keep it from seeing that the fd is
// writable (the hooked poll() of libpq or libcurl asks for both).
TEST_CASE("a poll op for POLLIN and POLLOUT reports writability") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketPair pair;
  RecordingOp poll;
  poll.describe(OpKind::poll, pair.fds[0], nullptr, 0);
  poll.flags_ = POLLIN | POLLOUT;
  poll.timeout_ = 2s;
  SECTION("on a writable socket whose read side has just been drained") {
    char buf[8];
    RecordingOp reader;  // parks, then a short read: the fd is known to be dry
    reader.describe(OpKind::recv, pair.fds[0], buf, sizeof buf);
    loop.submit(reader);
    loop.run_once();
    pair.write("x");
    run_until(loop, reader);
    REQUIRE(reader.res == 1);
    loop.submit(poll);
  }
  SECTION("when the peer drains a full send buffer") {
    std::vector<char> junk(1 << 16);
    while (::send(pair.fds[0], junk.data(), junk.size(), 0) > 0) {
    }
    loop.submit(poll);
    loop.run_once();
    CHECK_FALSE(poll.done);
    while (::recv(pair.fds[1], junk.data(), junk.size(), 0) > 0) {
    }
  }
  const auto start = std::chrono::steady_clock::now();
  run_until(loop, poll);
  REQUIRE(poll.res > 0);
  CHECK((poll.res & POLLOUT) != 0);
  CHECK((poll.res & POLLIN) == 0);
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

// A full submission queue is handed to the kernel before the next SQE; the
// loop reaps completions right then, so a burst that outruns the completion
// ring never piles up in the kernel's overflow list (where a kernel that
// answers -EBUSY to the next submission would make the retry spin forever).
TEST_CASE("a burst of ops larger than both rings is delivered in full by the next turn") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend, duet::LoopOptions{.ring_entries = 8});  // io_uring: 8 SQEs, 32 CQEs
  std::vector<RecordingOp> ops(200);
  for (RecordingOp& op : ops) loop.submit(op);  // nops
  CHECK(loop.run_once() == ops.size());
  CHECK(loop.in_flight() == 0);
}

// A burst of completions makes many owners prepare their next op in one turn;
// held for the turn's enter they would leave a disk idle meanwhile (O_DIRECT
// reads: 0.8x fio's IOPS), so submit_batch prepared ops go to the kernel at once.
TEST_CASE("ops reach the kernel as soon as submit_batch of them are prepared and complete at the turn") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend, duet::LoopOptions{.submit_batch = 2});
  loop.run_once();  // io_uring: hands the wake-up read in, the submission queue is empty
  SocketPair pair;
  RecordingOp sends[2];
  char text[] = "ab";
  char got[4] = {};
  for (int i = 0; i < 2; ++i) {
    sends[i].describe(OpKind::send, pair.fds[1], text + i, 1);
    loop.submit(sends[i]);
  }
  CHECK(::recv(pair.fds[0], got, sizeof got, MSG_DONTWAIT) == 2);  // before any turn
  CHECK_FALSE(sends[0].done);
  run_until(loop, sends[1]);
  CHECK((sends[0].res == 1 && sends[1].res == 1));
}

// Any reap may take the wake-up read's completion (abandon's, or one made to
// free a full submission queue); the next turn must re-arm it before it waits.
TEST_CASE("a wake-up consumed while abandoning an op does not deafen the next turn to wake") {
  ParkedRecv parked(GENERATE(Backend::io_uring, Backend::epoll));
  EventLoop& loop = parked.loop;
  loop.wake();
  CHECK(loop.abandon(parked.op) == -ECANCELED);
  std::thread waker([&] {
    std::this_thread::sleep_for(20ms);
    loop.wake();
  });
  const auto start = std::chrono::steady_clock::now();
  loop.run_once(start + 2s);
  waker.join();
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

// Closing an fd through the loop cancels what still waits on it, as asio's
// close does: on io_uring a socket op would otherwise outlive the close (the
// request holds the file), and on epoll it would never hear an edge again.
TEST_CASE("closing an fd through the loop cancels the ops still waiting on it") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  EventLoop loop(backend);
  SocketPair pair;
  char a[8];
  char b[8];
  RecordingOp plain, timed, poll;
  plain.describe(OpKind::recv, pair.fds[0], a, sizeof a);
  timed.describe(OpKind::recv, pair.fds[0], b, sizeof b);
  timed.timeout_ = 10s;  // cancelled, not timed out
  poll.describe(OpKind::poll, pair.fds[0], nullptr, 0);
  poll.flags_ = POLLIN;
  for (RecordingOp* op : {&plain, &timed, &poll}) loop.submit(*op);
  loop.run_once();
  loop.close_fd(std::exchange(pair.fds[0], -1));
  const auto give_up = std::chrono::steady_clock::now() + 2s;
  while (!(plain.done && timed.done && poll.done) && std::chrono::steady_clock::now() < give_up) {
    loop.run_once(give_up);
  }
  for (RecordingOp* op : {&plain, &timed, &poll}) {
    CHECK(op->res == -ECANCELED);
    if (op->in_flight()) loop.abandon(*op);  // keyed by the op, not the fd: works after the close
  }
  CHECK(loop.in_flight() == 0);
}
