// file_randread — random 4 KiB reads from one file at a fixed queue depth, in
// either voice over either backend; prints one JSON line with "iops".
//
//   file_randread --file PATH [--depth 32] [--seconds 10] [--voice stackless|stackful]
//                 [--backend io_uring|epoll] [--direct] [--block 4096] [--submit-batch 8]
//
// depth tasks (stackless) or fibers (stackful) each read one block at a random
// block-aligned offset, then the next, until the time is up: depth reads are in
// flight at once, as fio's --iodepth. io_uring: each read is an IORING_OP_READ;
// epoll: it runs on the blocking pool (duet::File's epoll path). --direct opens
// with O_DIRECT (page cache bypassed) into AlignedBuffers. --submit-batch sets
// LoopOptions::submit_batch (io_uring: prepared reads go to the kernel once that
// many wait; 0: only at the turn, as before it existed). Compare with fio:
//   fio --name=r --filename=PATH --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k
//       --direct=0|1 --time_based --runtime=10   (bench/file/run.sh runs both)
#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/aligned_buffer.hpp"
#include "duet/io/event_loop.hpp"
#include "duet/stackful/file.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/task/file.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/when_all.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string file;
  int depth = 32;
  double seconds = 10;
  std::string voice = "stackless";
  duet::Backend backend = duet::Backend::io_uring;
  bool direct = false;
  std::size_t block = 4096;
  duet::LoopOptions loop;
};

struct Shared {
  std::uint64_t blocks = 0;  // whole blocks in the file
  Clock::time_point until;
  std::uint64_t reads = 0;
  std::uint64_t errors = 0;
};

// xorshift64*: a cheap per-worker stream of block numbers.
std::uint64_t next_random(std::uint64_t& state) noexcept {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 2685821657736338717ULL;
}

// One stackless reader: reads until the deadline, one block at a time.
duet::Task<> read_task(duet::File& file, Shared& shared, std::size_t block, std::uint64_t seed) {
  duet::AlignedBuffer buf(block);
  std::uint64_t state = seed;
  while (Clock::now() < shared.until) {
    const std::uint64_t offset = next_random(state) % shared.blocks * block;
    auto n = co_await file.read_at(buf.bytes(), offset);
    ++(n ? shared.reads : shared.errors);
  }
}

duet::Task<bool> run_stackless(duet::EventLoop& loop, const Options& opt, Shared& shared, int flags) {
  auto file = co_await duet::File::open(loop, opt.file, flags);
  if (!file) co_return false;
  shared.until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.seconds));
  std::vector<duet::Task<>> readers;
  for (int i = 0; i < opt.depth; ++i) readers.push_back(read_task(*file, shared, opt.block, 0x9E3779B97F4A7C15ULL + i));
  co_await duet::when_all(std::move(readers));
  co_return true;
}

bool run_stackful(const Options& opt, Shared& shared, int flags) {
  duet::fiber::Scheduler scheduler({.backend = opt.backend, .loop = opt.loop, .stack_size = 64 * 1024});
  return scheduler.spawn([&] {
    auto file = duet::fiber::File::open(opt.file, flags);
    if (!file) return false;
    shared.until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.seconds));
    std::vector<duet::fiber::Fiber<>> readers;
    for (int i = 0; i < opt.depth; ++i) {
      readers.push_back(duet::fiber::spawn([&, i] {
        duet::AlignedBuffer buf(opt.block);
        std::uint64_t state = 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i);
        while (Clock::now() < shared.until) {
          const std::uint64_t offset = next_random(state) % shared.blocks * opt.block;
          ++(file->read_at(buf.bytes(), offset) ? shared.reads : shared.errors);
        }
      }));
    }
    for (auto& r : readers) r.join();
    return true;
  }).join();
}

Options parse(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (flag == "--direct") {
      opt.direct = true;
      continue;
    }
    if (flag == "--file") opt.file = value;
    if (flag == "--depth") opt.depth = std::atoi(value);
    if (flag == "--seconds") opt.seconds = std::atof(value);
    if (flag == "--voice") opt.voice = value;
    if (flag == "--block") opt.block = static_cast<std::size_t>(std::atol(value));
    if (flag == "--submit-batch") opt.loop.submit_batch = static_cast<unsigned>(std::atoi(value));
    if (flag == "--backend") opt.backend = duet::parse_backend(value).value_or(opt.backend);
    ++i;
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  struct stat st {};
  if (opt.file.empty() || ::stat(opt.file.c_str(), &st) != 0 || opt.depth < 1 || opt.block == 0 ||
      (opt.voice != "stackless" && opt.voice != "stackful")) {
    std::fprintf(stderr, "usage: file_randread --file PATH [--depth 32] [--seconds S] [--voice stackless|stackful] "
                         "[--backend io_uring|epoll] [--direct] [--block 4096] [--submit-batch 8]\n");
    return 2;
  }
  Shared shared;
  shared.blocks = static_cast<std::uint64_t>(st.st_size) / opt.block;
  if (shared.blocks == 0) return 2;
  const int flags = O_RDONLY | O_CLOEXEC | (opt.direct ? O_DIRECT : 0);
  const auto start = Clock::now();
  bool ok = false;
  if (opt.voice == "stackless") {
    duet::EventLoop loop(opt.backend, opt.loop);
    ok = duet::run_until_complete(loop, run_stackless(loop, opt, shared, flags));
  } else {
    ok = run_stackful(opt, shared, flags);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (!ok) {
    std::fprintf(stderr, "file_randread: cannot open %s\n", opt.file.c_str());
    return 1;
  }
  std::printf("{\"bench\": \"file_randread\", \"voice\": \"%s\", \"backend\": \"%s\", \"direct\": %s, \"depth\": %d, "
              "\"block\": %zu, \"submit_batch\": %u, \"file_bytes\": %lld, \"seconds\": %.3f, \"reads\": %llu, \"errors\": %llu, "
              "\"iops\": %.0f}\n",
              opt.voice.c_str(), duet::backend_name(opt.backend).data(), opt.direct ? "true" : "false", opt.depth,
              opt.block, opt.loop.submit_batch, static_cast<long long>(st.st_size), elapsed, static_cast<unsigned long long>(shared.reads),
              static_cast<unsigned long long>(shared.errors), static_cast<double>(shared.reads) / elapsed);
  return shared.errors == 0 ? 0 : 1;
}
