// SimWorld: the seeded generator (xoshiro256**, seeded through splitmix64 as
// its authors advise), the trace hash, the virtual clock and the thread's
// installation, which is what duet::now() and duet::sys read.
#include "duet/io/sim_world.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "duet/io/clock.hpp"
#include "duet/io/sim/sim_fs.hpp"
#include "duet/io/sim/sim_net.hpp"
#include "duet/io/sim/sim_threads.hpp"

namespace duet {

namespace detail {
thread_local const std::chrono::steady_clock::time_point* t_virtual_now = nullptr;
}

namespace {
thread_local SimWorld* t_world = nullptr;

std::uint64_t splitmix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__extension__ using Wide = unsigned __int128;

std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

// The defects a world can put back, each named after what it broke (the
// commit that fixed it in brackets; docs/ARCHITECTURE.md, "Simulation").
constexpr std::array<std::string_view, 5> sim_defects = {
    "send_all_stop",     // task: send_all ignored a stop landing between two chunks (174cc08)
    "accept_leak",       // task: a frame destroyed while accepting leaked the connection that beat the cancel (3fd85a9)
    "aof_rewrite_loss",  // kv: writes acknowledged while a rewrite switched files were in neither file (a0a01d4)
    "pooled_recv_cancel_lost",  // io: a pooled recv starved of buffers lost the cancel that met it (523f185)
    "fiber_hop_deadlock",  // stackful: a fiber awaiting a task away on another shard was called deadlocked (c0e2926, issue 23 §5)
};

void check_defects(std::string_view list) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    bool known = false;
    for (std::string_view d : sim_defects) known = known || d == name;
    if (!known) throw std::invalid_argument("duet: no such simulated defect: " + std::string(name));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
}
}  // namespace

bool sim_reintroduces(std::string_view defect) noexcept {
  const SimWorld* world = SimWorld::current();
  if (world == nullptr || world->options().defects.empty()) return false;
  std::string_view list = world->options().defects;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == defect) return true;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

SimWorld::SimWorld(SimOptions options)
    : options_(options), start_(detail::virtual_start), now_(detail::virtual_start), trace_(0xcbf29ce484222325ULL) {
  if (t_world != nullptr) throw std::logic_error("duet: a SimWorld is installed on this thread already");
  check_defects(options_.defects);
  if (options_.max_latency < options_.min_latency) options_.max_latency = options_.min_latency;
  if (options_.max_window < options_.min_window) options_.max_window = options_.min_window;
  if (options_.min_window == 0) options_.min_window = 1;
  std::uint64_t x = options_.seed;
  for (std::uint64_t& word : rng_) word = splitmix64(x);
  net_ = std::make_unique<detail::SimNet>(*this);
  fs_ = std::make_unique<detail::SimFs>(*this);
  threads_ = std::make_unique<detail::SimThreads>(*this);
  install_on_this_thread();
}

void SimWorld::install_on_this_thread() noexcept {
  t_world = this;
  detail::t_virtual_now = &now_;
}

SimWorld::~SimWorld() {
  t_world = nullptr;
  detail::t_virtual_now = nullptr;
}

SimWorld* SimWorld::current() noexcept { return t_world; }

void SimWorld::crash(bool torn_tail) {
  fs_->crash(torn_tail);
  net_->reset_all();
}

void SimWorld::restart() noexcept {
  fs_->restart();
  trace(0x5e57a27ULL);
}

void SimWorld::post_work(const void* key, std::function<void()> fn) {
  const auto most = static_cast<std::uint64_t>(options_.max_work_delay.count());
  const Clock::time_point due = now_ + std::chrono::nanoseconds(below(most + 1));
  work_.push_back(Work{due, key, std::move(fn), detail::SimThreads::current()});
}

bool SimWorld::cancel_work(const void* key) noexcept {
  if (key == nullptr) return false;
  for (auto it = work_.begin(); it != work_.end(); ++it) {
    if (it->key == key) {
      work_.erase(it);
      return true;
    }
  }
  return false;
}

// The due items leave the list before any runs: work may post more work.
bool SimWorld::run_due_work() {
  std::vector<Work> due;
  const std::size_t here = detail::SimThreads::current();
  for (std::size_t i = 0; i < work_.size();) {
    if (work_[i].due <= now_ && work_[i].thread == here) {
      due.push_back(std::move(work_[i]));
      work_.erase(work_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  for (std::size_t i = due.size(); i > 1; --i) std::swap(due[i - 1], due[below(i)]);
  for (Work& w : due) {
    trace(0x3017ULL ^ static_cast<std::uint64_t>(now_.time_since_epoch().count()));
    w.fn();
  }
  return !due.empty();
}

std::optional<SimWorld::Clock::time_point> SimWorld::next_work() const noexcept {
  std::optional<Clock::time_point> next;
  const std::size_t here = detail::SimThreads::current();
  for (const Work& w : work_) {
    if (w.thread == here && (!next || w.due < *next)) next = w.due;
  }
  return next;
}

int SimWorld::spare_from_faults(int fd) { return net_->spare(fd); }

std::size_t SimWorld::open_sockets() const noexcept { return net_->open_sockets(); }

SimWorld::Clock::duration SimWorld::elapsed() const noexcept { return now_ - start_; }

std::uint64_t SimWorld::random() noexcept {
  const std::uint64_t result = rotl(rng_[1] * 5, 7) * 9;
  const std::uint64_t t = rng_[1] << 17;
  rng_[2] ^= rng_[0];
  rng_[3] ^= rng_[1];
  rng_[1] ^= rng_[2];
  rng_[0] ^= rng_[3];
  rng_[2] ^= t;
  rng_[3] = rotl(rng_[3], 45);
  return result;
}

bool SimWorld::chance(double p) noexcept {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return static_cast<double>(random() >> 11) * 0x1.0p-53 < p;
}

std::uint64_t SimWorld::below(std::uint64_t n) noexcept {
  return n <= 1 ? 0 : static_cast<std::uint64_t>((static_cast<Wide>(random()) * n) >> 64);
}

SimWorld::Clock::duration SimWorld::latency() noexcept {
  const auto span = static_cast<std::uint64_t>((options_.max_latency - options_.min_latency).count());
  const Clock::duration d = options_.min_latency + std::chrono::nanoseconds(below(span + 1));
  const auto q = options_.latency_quantum.count();
  return q > 0 ? Clock::duration(d.count() / q * q) : d;
}

void SimWorld::trace(std::uint64_t word) noexcept {
  trace_ ^= word;
  trace_ *= 0x100000001b3ULL;
  trace_ ^= trace_ >> 29;
}

void SimWorld::trace_bytes(const void* data, std::size_t len) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < len; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  trace(h ^ len);
}

void SimWorld::deadlock() noexcept {
  if (on_deadlock_ != nullptr) on_deadlock_(*this, deadlock_context_);  // reports, then exits
  std::fprintf(stderr,
               "duet sim: deadlock at %.6f s of virtual time (seed %llu): every op waits for something that "
               "cannot happen\n",
               std::chrono::duration<double>(elapsed()).count(), static_cast<unsigned long long>(seed()));
  std::abort();
}

}  // namespace duet
