#include "kv/server_runtime.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "duet/io/clock.hpp"
#include "duet/io/sys.hpp"
#include "duet/io/socket_ops.hpp"
#include "kv/notify.hpp"
#include "duet/runtime/shard.hpp"

namespace duet::kv {
namespace {

std::atomic<int> g_stop_signal{0};

extern "C" void on_stop_signal(int signo) { g_stop_signal.store(signo, std::memory_order_relaxed); }

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

constexpr std::string_view maxclients_error = "-ERR max number of clients reached\r\n";

}  // namespace

int ServerRuntime::main(int argc, char** argv, std::string_view voice, const Body& body) {
  std::string program = argc > 0 ? argv[0] : "duet-kv";
  std::string error;
  auto options = parse_server_options(argc, argv, error);
  if (!options) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(usage(program).c_str(), stdout);
    return 0;
  }
  if (options->backend == Backend::sim) {  // a simulation needs its clients in the process
    std::fprintf(stderr, "%s: --backend sim runs only under duet-kv-sim\n", program.c_str());
    return 2;
  }
  options->config.voice = std::string(voice);
  install_signal_handlers();
  try {
    ServerRuntime runtime(std::move(*options));
    return body(runtime);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: fatal: %s\n", program.c_str(), e.what());
    return 1;
  }
}

ServerRuntime::ServerRuntime(ServerOptions options)
    : options_(std::move(options)), cluster_(options_.threads, options_.config), log_(state().config()) {
  for (std::size_t i = 0; i < cluster_.size(); ++i) {
    ServerState& state = cluster_.shard(i).state();
    state.set_socket_namer([](int fd, bool peer) {
      // A Unix socket's client is unnamed: Redis shows both ends as "path:0".
      const SocketAddress local = local_address_of(fd);
      if (local.family() == AF_UNIX) return local.to_string() + ":0";
      return (peer ? peer_address_of(fd) : local).to_string();
    });
    // CONFIG SET timeout: shutting the socket down ends the idle connection's
    // pending recv with EOF on either backend, so its driver loop closes it.
    state.set_client_closer([](int fd) { sys::shutdown(fd, SHUT_RDWR); });
    // A SHUTDOWN runs on the shard of the connection that sent it; every
    // shard's cron reads this one flag, so all of them stop.
    state.set_shutdown_hook([this] { stop_.store(true, std::memory_order_relaxed); });
    if (options_.backend == Backend::sim) {  // duet-kv-sim: expiry and TTLs on the simulation's calendar
      state.set_clock([] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(wall_now().time_since_epoch()).count();
      });
    }
  }
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (const TlsServerOptions& t = options_.tls; t.port != 0) {
    TlsOptions o;
    o.role = TlsRole::server;
    o.cert_chain_file = t.cert_file;
    o.key_file = t.key_file;
    o.ca_file = t.ca_cert_file;
    o.ca_dir = t.ca_cert_dir;
    o.verify = t.auth_clients == "yes" ? TlsVerify::peer : t.auth_clients == "optional" ? TlsVerify::optional : TlsVerify::none;
    tls_ = std::make_unique<TlsContext>(o);
  }
}

ServerRuntime::~ServerRuntime() {
  if (const int fd = spare_fd_.load(); fd >= 0) ::close(fd);
}

void ServerRuntime::open_backend(const std::function<void(Backend)>& open) {
  Backend backend = options_.backend;
  try {
    open(backend);
  } catch (const std::system_error& e) {
    if (backend != Backend::io_uring) throw;
    log_.write(LogLevel::warning, std::string("io_uring unavailable (") + e.what() + "), falling back to epoll");
    backend = Backend::epoll;
    open(backend);
  }
  for (std::size_t i = 0; i < cluster_.size(); ++i) cluster_.shard(i).state().config().backend = backend_name(backend);
}

SocketAddress ServerRuntime::listen_address() const {
  const ServerConfig& c = options_.config;  // the flags, as every shard's state has them at start
  auto addr = SocketAddress::parse(c.bind, static_cast<std::uint16_t>(c.port));
  if (!addr) throw std::invalid_argument("invalid --bind address '" + c.bind + "'");
  return *addr;
}

// duet frees a listener's port when the process is gone, however it ended
// (io/socket_ops.hpp, "A port free at exit"), but a supervisor restarting at
// once may still find it busy: a child the old server forked still running,
// or the old server still shutting down. nginx retries bind() a few times
// with "still could not bind()"; so do we, through ListenOptions::bind_retry
// (a doubling back-off from 5 ms to 250 ms), which gives up after
// bind_retry_budget when another process keeps the port.
void ServerRuntime::bind_listener(const BindListener& bind) {
  bind_with_retry(listen_address(), bind);
}

void ServerRuntime::bind_tls_listener(const BindListener& bind) {
  const auto address = SocketAddress::parse(state().config().bind, static_cast<std::uint16_t>(options_.tls.port));
  if (!address) throw std::invalid_argument("invalid --bind address '" + state().config().bind + "'");
  bind_with_retry(*address, bind);
}

// The first try fails at once, so the warning is logged before the wait.
void ServerRuntime::bind_with_retry(const SocketAddress& address, const BindListener& bind) {
  try {
    return bind(address, ListenOptions{});
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::address_in_use) throw;
    log_.write(LogLevel::warning, std::string(e.what()) + "; retrying for up to " +
                                      std::to_string(bind_retry_budget.count()) +
                                      " ms (a crashed server's socket may still be closing)");
  }
  bind(address, ListenOptions{.bind_retry = bind_retry_budget});
}

// Names the voice and backend, and with --threads N > 1 the shards and how
// connections spread ("stackless, io_uring, 2 threads, reuseport").
std::string ServerRuntime::describe() {
  const ServerConfig& c = state().config();
  std::string what = c.voice + ", " + c.backend;
  if (cluster_.size() > 1) {
    what += ", " + std::to_string(cluster_.size()) + " threads, " + std::string(accept_mode_name(options_.accept));
  }
  return what;
}

void ServerRuntime::on_listening(const SocketAddress& local) {
  for (std::size_t i = 0; i < cluster_.size(); ++i) cluster_.shard(i).state().config().port = local.port();
  log_.write(LogLevel::notice, "duet-kv (" + describe() + ") listening on " + local.to_string());
  log_.write(LogLevel::notice, "Ready to accept connections tcp");
  if (!on_listening_hook_) return;
  if (EventLoop::current() == nullptr) {
    listening_hook_due_ = true;
    return;
  }
  on_listening_hook_();
}

void ServerRuntime::serving_ended() {
  if (auto hook = std::exchange(on_serving_ended_hook_, nullptr)) hook();
}

bool ServerRuntime::bind_unix_listener(const std::function<void(const SocketAddress&, const ListenOptions&)>& bind) {
  const ServerConfig& c = state().config();
  if (c.unixsocket.empty()) return false;
  const SocketAddress address = SocketAddress::unix_domain(c.unixsocket).value();  // checked by the flag parser
  try {
    bind(address, ListenOptions{.unix_mode = c.unixsocketperm});
  } catch (const std::system_error& e) {
    throw std::runtime_error("Failed opening Unix socket: " + std::string(e.what()));
  }
  unix_file_ = UnixSocketFile::bound(address);  // listening: no other server takes it from here
  log_.write(LogLevel::notice, "The server is now ready to accept connections at " + c.unixsocket);
  return true;
}

void ServerRuntime::on_tls_error(std::error_code error, const std::string& detail) {
  log_.write(LogLevel::verbose, "Error accepting a client connection: " + error.message() +
                                    (detail.empty() ? "" : " (" + detail + ")"));
}

void ServerRuntime::on_listening_tls(const SocketAddress& local) {
  log_.write(LogLevel::notice, "duet-kv (" + describe() + ") listening on " + local.to_string() + " (TLS)");
  log_.write(LogLevel::notice, "Ready to accept connections tls");
}

// One count for the server, taken before the check: two shards admitting at
// once cannot both take the last place.
bool ServerRuntime::admit(int fd, std::size_t shard) {
  ServerState& state = cluster_.shard(shard).state();
  if (connections_.fetch_add(1, std::memory_order_relaxed) >= state.config().maxclients) {
    connections_.fetch_sub(1, std::memory_order_relaxed);
    ++state.stats().rejected_connections;
    // Best effort, like Redis: a fresh socket's send buffer takes these few bytes.
    [[maybe_unused]] auto n = ::send(fd, maxclients_error.data(), maxclients_error.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    return false;
  }
  ++state.stats().connections_received;  // Redis counts only admitted connections
  return true;
}

std::chrono::milliseconds ServerRuntime::on_accept_error(std::error_code error, int listen_fd, std::size_t shard) {
  using std::chrono::milliseconds;
  const ServerLog log(cluster_.shard(shard).state().config());  // this shard's loglevel, read on its thread
  if (error != std::errc::too_many_files_open && error != std::errc::too_many_files_open_in_system) {
    if (error != std::errc::operation_canceled) log.write(LogLevel::verbose, "accept: " + error.message());
    return milliseconds(0);
  }
  // Out of fds: a level-triggered listener would report the same pending
  // connection forever. Free the spare fd, accept and drop the connection, and
  // put a spare back; then back off briefly. One spare for the server: a shard
  // takes it by exchange, so two shards out of fds at once never close one fd
  // twice (the one that finds none just backs off).
  if (const int spare = spare_fd_.exchange(-1, std::memory_order_acq_rel); spare >= 0) {
    ::close(spare);
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) ::close(fd);
    spare_fd_.store(::open("/dev/null", O_RDONLY | O_CLOEXEC), std::memory_order_release);
  }
  const std::int64_t now = ServerState::system_now_ms();
  std::int64_t last = last_emfile_log_ms_.load(std::memory_order_relaxed);
  if (now - last >= 1000 && last_emfile_log_ms_.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    log.write(LogLevel::warning, "accept: " + error.message() + " (raise ulimit -n); dropping new connections");
  }
  return milliseconds(50);
}

void ServerRuntime::start_sharded_aof(EventLoop& loop, std::function<void()> serve) {
  if (std::exchange(listening_hook_due_, false)) on_listening_hook_();
  start_aof(loop);
  if (!aof_ || cluster_.size() < 2) return serve();
  feed_stopped_msgs_ = std::make_unique<FeedStopped[]>(cluster_.size());
  sharded_aof_ = std::make_unique<ShardedAof>(cluster_, *aof_);
  sharded_aof_->start(std::move(serve));
}

void ServerRuntime::stop_shard_aof(std::size_t shard) {
  if (!sharded_aof_ || shard == 0) return;
  sharded_aof_->feed(shard).uninstall();  // publishes what it still holds
  FeedStopped& msg = feed_stopped_msgs_[shard];
  msg.rt = this;
  msg.run_ = [](LoopMessage* m) noexcept { ++static_cast<FeedStopped*>(m)->rt->feeds_stopped_; };
  cluster_.send(0, msg);  // behind that last record in shard 0's inbox
}

AofDurability* ServerRuntime::durability() noexcept {
  if (cluster_.size() < 2) return aof_.get();
  const Shard* shard = this_shard();
  return shard != nullptr ? cluster_.shard(shard->id()).durability() : nullptr;
}

void ServerRuntime::start_aof(EventLoop& loop) {
  if (!state().config().appendonly) return;
  auto aof = std::make_unique<AofService>(state(), loop, [this](bool warning, const std::string& line) {
    log_.write(warning ? LogLevel::warning : LogLevel::notice, line);
  });
  aof->open();  // on a throw, `aof` is released here, while the loop is alive
  aof_ = std::move(aof);
}

bool ServerRuntime::tick(std::size_t shard) {
  // Budget: up to 10k volatile keys per tick (100k/s at hz 10), like Redis's
  // "fast" effort; the cycle is O(budget) so it never stalls the loop.
  KvShard& here = cluster_.shard(shard);
  ServerState& state = here.state();
  const std::int64_t now = state.now_ms();
  // Not while a job that writes holds this shard alone: it sees the keyspace
  // stand still (a rewrite's snapshot, an MSETNX's check). Beside jobs that
  // only read it may: a key that expires after an MGET read it is time
  // passing, as a lazy expiry by a GET beside them would be, and a stream of
  // MGETs must not stop the cron from freeing expired keys.
  if (here.gate().open_for_reads()) state.store().active_expire_cycle(now, 10'000);
  flush_keyspace_events(state);  // its "expired" events, for the other shards' subscribers
  state.close_idle_clients(now);
  if (shard == 0 && aof_) aof_->tick();
  return g_stop_signal.load(std::memory_order_relaxed) != 0 || stop_.load(std::memory_order_relaxed);
}

std::chrono::milliseconds ServerRuntime::tick_interval(std::size_t shard) noexcept {
  return std::chrono::milliseconds(1000 / cluster_.shard(shard).state().config().hz);
}

void ServerRuntime::on_stopped() {
  serving_ended();
  if (on_stopped_hook_) on_stopped_hook_();
  int signo = g_stop_signal.load(std::memory_order_relaxed);
  std::string why = signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "SHUTDOWN";
  if (aof_) aof_->shutdown();
  if (!unix_file_.empty()) {
    log_.write(LogLevel::notice, "Removing the unix socket file.");
    unix_file_.remove();  // only if the path still names our socket, not a successor's
  }
  log_.write(LogLevel::warning, "Received " + why + ", shutting down; bye bye");
}

}  // namespace duet::kv
