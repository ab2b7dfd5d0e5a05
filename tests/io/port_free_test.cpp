// A port free at exit (issue 29 §5): a server killed or stopped is restarted
// at once on the same port, 20 times per configuration, and must bind every
// time without EADDRINUSE (no retry anywhere). The server is port_holder
// (DUET_PORT_HOLDER), with an accept and a connection's recv in flight when
// it dies: both voices, both backends, one listener or a ConnectionSpreader's
// SO_REUSEPORT listeners; killed by SIGKILL, by SIGTERM's default action, or
// stopped cleanly by a handled SIGTERM. Before io_uring accepts polled an
// epoll set (io/uring_accept.cpp), the io_uring kills failed in the first
// rounds: the dead ring's accept held the listener until the kernel's teardown.
// In process: a listener closed under a pending accept frees its port at
// once, a stream closed under a pending recv sends its FIN at once, and
// ListenOptions::bind_retry waits for a busy port, within its bound.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <duet/duet.hpp>

#include "support/on_fibers.hpp"

extern char** environ;

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::SocketAddress;
using duet::Task;
using duet::UniqueFd;
using namespace std::chrono_literals;

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// A port nobody uses now: bind port 0, read it, close.
std::uint16_t free_port() {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr = loopback(0);
  REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  return ntohs(addr.sin_port);
}

// What a restarted server does first: SO_REUSEADDR, bind, listen. 0 or errno.
int bind_listener(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr = loopback(port);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return errno;
  return ::listen(fd.get(), 16) == 0 ? 0 : errno;
}

// port_holder as a child; started() is true once it printed its banner
// (it exits 1 without one when its bind fails).
class Holder {
 public:
  explicit Holder(std::vector<std::string> args) : args_(std::move(args)) {
    std::vector<char*> argv;
    for (std::string& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_adddup2(&files, out[1], STDOUT_FILENO);
    const int spawned = posix_spawn(&pid_, args_[0].c_str(), &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    ::close(out[1]);
    out_ = ::fdopen(out[0], "r");
    REQUIRE(spawned == 0);
    char line[128] = {};
    started_ = std::fgets(line, sizeof line, out_) != nullptr && std::strncmp(line, "holder on port", 14) == 0;
  }
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;
  Holder(Holder&&) = delete;
  Holder& operator=(Holder&&) = delete;
  ~Holder() {
    if (pid_ > 0) stop(SIGKILL);
    std::fclose(out_);
  }

  [[nodiscard]] bool started() const noexcept { return started_; }

  // Sends sig and reaps the child; its wait status, or -1 if it had to be
  // killed after 5 s (a graceful stop that hung).
  int stop(int sig) {
    ::kill(pid_, sig);
    int status = 0;
    bool exited = false;
    for (int waited_ms = 0; !exited && waited_ms < 5'000; ++waited_ms) {
      exited = ::waitpid(pid_, &status, WNOHANG) == pid_;
      if (!exited) ::usleep(1'000);
    }
    if (!exited) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    return exited ? status : -1;
  }

 private:
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  bool started_ = false;
};

// Two connections, two round trips each: the holder has accepted, and the
// next accept and each connection's next recv are in the kernel.
bool echoes(std::uint16_t port, std::vector<UniqueFd>& conns) {
  for (int c = 0; c < 2; ++c) {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const timeval limit{5, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    sockaddr_in addr = loopback(port);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
    for (int round = 0; round < 2; ++round) {
      char reply[4] = {};
      if (::send(fd.get(), "ping", 4, MSG_NOSIGNAL) != 4) return false;
      if (::recv(fd.get(), reply, sizeof reply, MSG_WAITALL) != 4 || std::memcmp(reply, "ping", 4) != 0) return false;
    }
    conns.push_back(std::move(fd));
  }
  return true;
}

std::string holder_exe() {
  const char* path = std::getenv("DUET_PORT_HOLDER");
  REQUIRE(path != nullptr);
  return path;
}

struct Config {
  const char* voice;
  const char* backend;
  int signal;
  bool graceful;
};

void restart_20_times(const Config& config) {
  INFO(config.voice << " on " << config.backend << ", " << strsignal(config.signal)
                    << (config.graceful ? " (handled: a clean stop)" : " (the default action)"));
  const std::uint16_t port = free_port();
  std::vector<std::string> args{holder_exe(), "--port", std::to_string(port), "--backend", config.backend,
                                "--voice", config.voice};
  if (config.graceful) args.emplace_back("--graceful");
  for (int round = 0; round < 20; ++round) {
    INFO("round " << round);
    {
      Holder holder(args);
      REQUIRE(holder.started());  // its bind succeeded: the previous holder's port was free
      std::vector<UniqueFd> conns;
      REQUIRE(echoes(port, conns));
      const int status = holder.stop(config.signal);
      if (config.graceful) {
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
      } else {
        CHECK((WIFSIGNALED(status) && WTERMSIG(status) == config.signal));
      }
    }
    REQUIRE(bind_listener(port) == 0);  // at once, in this process too
  }
}

}  // namespace

TEST_CASE("a killed server's port is free the moment it is gone: restarted at once, 20 times") {
  const Config config =
      GENERATE(Config{"task", "io_uring", SIGKILL, false}, Config{"task", "io_uring", SIGTERM, false},
               Config{"fiber", "io_uring", SIGKILL, false}, Config{"fiber", "io_uring", SIGTERM, false},
               Config{"task", "epoll", SIGKILL, false}, Config{"fiber", "epoll", SIGTERM, false});
  restart_20_times(config);
}

TEST_CASE("a cleanly stopped server's port is free the moment it exits: restarted at once, 20 times") {
  const Config config = GENERATE(Config{"task", "io_uring", SIGTERM, true}, Config{"fiber", "io_uring", SIGTERM, true},
                                 Config{"task", "epoll", SIGTERM, true}, Config{"fiber", "epoll", SIGTERM, true});
  restart_20_times(config);
}

TEST_CASE("a sharded server's SO_REUSEPORT listeners are all gone with it: restarted at once, 20 times") {
  const Config config =
      GENERATE(Config{"spread-task", "io_uring", SIGKILL, false}, Config{"spread-fiber", "io_uring", SIGKILL, false},
               Config{"spread-task", "io_uring", SIGTERM, true}, Config{"spread-fiber", "epoll", SIGTERM, true});
  restart_20_times(config);
}

TEST_CASE("a listener closed while an accept waits frees its port before close returns") {
  const auto [backend, basic] = GENERATE(table<Backend, bool>({{Backend::io_uring, false},
                                                               {Backend::io_uring, true}, {Backend::epoll, false}}));
  INFO("backend " << duet::backend_name(backend) << (basic ? " (basic setup)" : ""));
  SECTION("tasks") {
    EventLoop loop(backend, duet::LoopOptions{.uring_basic_setup = basic});
    auto listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
    const std::uint16_t port = listener.local_address().port();
    std::error_code accepted;
    auto acceptor = [](duet::TcpListener& l, std::error_code& out) -> Task<void> {
      out = (co_await l.accept()).error();
    };
    duet::TaskScope scope;
    scope.spawn(acceptor(listener, accepted));
    loop.run_once();  // the accept is in the kernel
    listener.close();
    CHECK(bind_listener(port) == 0);
    duet::run_until_complete(loop, scope.join());
    CHECK(accepted == std::errc::operation_canceled);
  }
  SECTION("fibers") {
    const auto [bound, accepted] = duet::test::on_fibers(backend, [] {
      auto listener = duet::fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
      const std::uint16_t port = listener.local_address().port();
      auto acceptor = duet::fiber::spawn([&] { return listener.accept().error(); });
      duet::fiber::sleep_for(1ms);  // the acceptor parked, its accept in the kernel
      listener.close();
      const int bound = bind_listener(port);
      return std::pair{bound, acceptor.join()};
    });
    CHECK(bound == 0);
    CHECK(accepted == std::errc::operation_canceled);
  }
}

namespace {
// guide:begin bind_retry
duet::TcpListener listen_after_restart(duet::EventLoop& loop, const duet::SocketAddress& addr) {
  // While the port is in use (EADDRINUSE), tries again for up to 2 s, then throws.
  return duet::TcpListener::bind(loop, addr, {.bind_retry = std::chrono::seconds(2)});
}
// guide:end

// Listens on a free port until release(), when it closes (from any thread).
class HeldPort {
 public:
  HeldPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr = loopback(0);
    REQUIRE(::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_.get(), 16) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
  }
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  [[nodiscard]] SocketAddress address() const { return SocketAddress::parse("127.0.0.1", port_).value(); }
  void release() noexcept { fd_.reset(); }

 private:
  UniqueFd fd_;
  std::uint16_t port_ = 0;
};

// Error codes of the binds a body makes: 0 when it bound.
template <typename Bind>
std::error_code bind_error(Bind bind) {
  try {
    bind();
    return {};
  } catch (const std::system_error& e) {
    return e.code();
  }
}
}  // namespace

TEST_CASE("ListenOptions::bind_retry waits for a busy port to be freed, in both voices and the spreader") {
  const std::string who = GENERATE("task", "fiber", "spreader");
  INFO(who);
  HeldPort held;
  std::thread releaser([&] {
    std::this_thread::sleep_for(30ms);
    held.release();
  });
  const duet::ListenOptions options{.bind_retry = 10s};
  std::error_code error;
  if (who == "task") {
    EventLoop loop(Backend::epoll);
    error = bind_error([&] { (void)listen_after_restart(loop, held.address()); });
  } else if (who == "fiber") {
    error = duet::test::on_fibers(Backend::io_uring, [&] {
      return bind_error([&] { (void)duet::fiber::TcpListener::bind(held.address(), options); });
    });
  } else {
    error = bind_error([&] { duet::ConnectionSpreader spreader(2, held.address(), {.listen = options}); });
  }
  releaser.join();
  CHECK(error == std::error_code());
}

TEST_CASE("a port that stays busy fails the bind at once without bind_retry, and after it with a clear error") {
  HeldPort held;
  EventLoop loop(Backend::epoll);
  CHECK(bind_error([&] { (void)duet::TcpListener::bind(loop, held.address()); }) == std::errc::address_in_use);
  try {
    (void)duet::TcpListener::bind(loop, held.address(), {.bind_retry = 40ms});
    FAIL("bound a port another socket listens on");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::address_in_use);
    CHECK_THAT(e.what(), Catch::Contains("still could not bind() after"));
  }
}

TEST_CASE("a stream closed while a recv waits is closed in the kernel before close returns") {
  const auto [backend, basic] = GENERATE(table<Backend, bool>({{Backend::io_uring, false},
                                                               {Backend::io_uring, true}, {Backend::epoll, false}}));
  INFO("backend " << duet::backend_name(backend) << (basic ? " (basic setup)" : ""));
  EventLoop loop(backend, duet::LoopOptions{.uring_basic_setup = basic});
  auto listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  UniqueFd peer(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr = loopback(listener.local_address().port());
  REQUIRE(::connect(peer.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  auto conn = duet::run_until_complete(loop, [](duet::TcpListener& l) -> Task<duet::IoResult<duet::TcpStream>> {
    co_return co_await l.accept();
  }(listener));
  REQUIRE(conn);
  std::error_code received;
  auto reader = [](duet::TcpStream& s, std::error_code& out) -> Task<void> {
    char c;
    out = (co_await s.recv(std::span<char>(&c, 1))).error();
  };
  duet::TaskScope scope;
  scope.spawn(reader(*conn, received));
  loop.run_once();  // the recv is in the kernel
  conn->close();
  pollfd ready{peer.get(), POLLIN, 0};
  CHECK(::poll(&ready, 1, 0) == 1);  // the FIN is there: no turn was needed
  char c;
  CHECK(::recv(peer.get(), &c, 1, MSG_DONTWAIT) == 0);
  duet::run_until_complete(loop, scope.join());
  CHECK(received == std::errc::operation_canceled);
}
