// The simulated file system under File, in both voices: reads see every
// write, a crash keeps only what was fsynced (and, asked for, a torn tail),
// names need their directory's fsync, and injected faults come back as errors.
#include <catch2/catch.hpp>

#include <fcntl.h>

#include <chrono>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/sim/sim_fs.hpp"
#include "duet/io/sim_world.hpp"
#include "duet/io/sys.hpp"
#include "duet/stackful/file.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/task/file.hpp"
#include "duet/task/run.hpp"

using namespace std::chrono_literals;

namespace {

// Writes "synced." and fsyncs it, then "lost." without: what a log does
// between two group commits.
duet::Task<void> log_two_records(duet::EventLoop& loop) {
  auto f = co_await duet::File::open(loop, "data/log", O_WRONLY | O_CREAT | O_APPEND);
  REQUIRE(f);
  auto a = co_await f->write_all(std::string_view("synced."), -1);
  REQUIRE(a);
  auto s = co_await f->fdatasync();
  REQUIRE(s);
  auto b = co_await f->write_all(std::string_view("lost."), -1);
  REQUIRE(b);
  auto back = co_await duet::File::open(loop, "data/log", O_RDONLY);
  REQUIRE(back);
  auto text = co_await back->read_all();
  REQUIRE(text);
  CHECK(*text == "synced.lost.");  // reads see the page cache
}

void fiber_log_two_records() {
  auto f = duet::fiber::File::open("data/log", O_WRONLY | O_CREAT | O_APPEND);
  REQUIRE(f);
  REQUIRE(f->write_all(std::string_view("synced."), -1));
  REQUIRE(f->fdatasync());
  REQUIRE(f->write_all(std::string_view("lost."), -1));
  auto back = duet::fiber::File::open("data/log", O_RDONLY);
  REQUIRE(back);
  CHECK(back->read_all().value() == "synced.lost.");
}

}  // namespace

TEST_CASE("a simulated crash keeps what was fsynced and loses the rest, in both voices", "[sim][fs]") {
  for (int voice = 0; voice < 2; ++voice) {
    duet::SimWorld world({.seed = 3});
    if (voice == 0) {
      duet::EventLoop loop(duet::Backend::sim);
      duet::run_until_complete(loop, log_two_records(loop));
    } else {
      duet::fiber::Scheduler scheduler({.backend = duet::Backend::sim});
      scheduler.spawn(fiber_log_two_records).join();
    }
    REQUIRE(world.fs().contents("data/log") != nullptr);
    world.crash();
    const std::string* after = world.fs().contents("./data/log");
    REQUIRE(after != nullptr);  // the file's own fsync made its name durable
    CHECK(*after == "synced.");
  }
}

TEST_CASE("a torn crash keeps a prefix of the unsynced tail, some seeds more than others", "[sim][fs]") {
  std::size_t shortest = 1000, longest = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    duet::SimWorld world({.seed = seed});
    const int fd = duet::sys::open("aof", O_WRONLY | O_CREAT | O_APPEND);
    REQUIRE(fd >= duet::SimWorld::first_fd);
    REQUIRE(duet::sys::pwrite(fd, "head|", 5, 0) == 5);
    REQUIRE(duet::sys::fsync(fd) == 0);
    REQUIRE(duet::sys::pwrite(fd, "0123456789", 10, 5) == 10);
    world.crash(true);
    const std::string kept = *world.fs().contents("aof");
    CHECK(kept.substr(0, 5) == "head|");
    CHECK(std::string("head|0123456789").substr(0, kept.size()) == kept);
    shortest = std::min(shortest, kept.size());
    longest = std::max(longest, kept.size());
    // The dead process's code may still run; nothing it does reaches the disk.
    CHECK(duet::sys::pwrite(fd, "x", 1, 0) == 1);
    CHECK(duet::sys::fsync(fd) == 0);
    CHECK(duet::sys::rename("aof", "gone") == 0);
    CHECK(*world.fs().contents("aof") == kept);
    CHECK(world.fs().contents("gone") == nullptr);
    CHECK(duet::sys::close(fd) == 0);
    world.restart();  // a new process: its calls act again
    const int again = duet::sys::open("aof", O_RDONLY);
    char first = 0;
    CHECK(duet::sys::pread(again, &first, 1, 0) == 1);
    CHECK(first == 'h');
    duet::sys::close(again);
  }
  CHECK(shortest < longest);
}

TEST_CASE("a rename survives a crash only once its directory is fsynced", "[sim][fs]") {
  duet::SimWorld world({.seed = 1});
  auto write_file = [](const char* path, const char* text) {
    const int fd = duet::sys::open(path, O_WRONLY | O_CREAT | O_TRUNC);
    REQUIRE(duet::sys::pwrite(fd, text, std::char_traits<char>::length(text), 0) > 0);
    REQUIRE(duet::sys::fsync(fd) == 0);
    duet::sys::close(fd);
  };
  write_file("f", "old");
  write_file("f.tmp", "new");
  REQUIRE(duet::sys::rename("f.tmp", "f") == 0);
  world.crash();
  CHECK(*world.fs().contents("f") == "old");  // the rename was not durable
  CHECK(*world.fs().contents("f.tmp") == "new");
  world.restart();
  REQUIRE(duet::sys::rename("f.tmp", "f") == 0);
  const int dir = duet::sys::open(".", O_RDONLY | O_DIRECTORY);
  REQUIRE(duet::sys::fsync(dir) == 0);
  duet::sys::close(dir);
  world.crash();
  CHECK(*world.fs().contents("f") == "new");
  CHECK(world.fs().contents("f.tmp") == nullptr);
}

TEST_CASE("injected disk faults come back as ENOSPC and EIO, and an fsync takes simulated time", "[sim][fs]") {
  duet::SimWorld world({.seed = 2, .enospc = 1.0, .max_fsync_delay = 5ms});
  duet::EventLoop loop(duet::Backend::sim);
  duet::run_until_complete(loop, [](duet::EventLoop& l, duet::SimWorld& w) -> duet::Task<void> {
    auto f = co_await duet::File::open(l, "full", O_WRONLY | O_CREAT);
    REQUIRE(f);
    auto wrote = co_await f->write_at(std::span<const char>("x", 1), 0);
    CHECK(wrote.error() == std::errc::no_space_on_device);
    const auto before = w.now();
    for (int i = 0; i < 20; ++i) {
      auto synced = co_await f->fsync();
      CHECK(synced);
    }
    CHECK(w.now() > before);
    CHECK(w.now() - before <= 100ms);
  }(loop, world));
}

TEST_CASE("an fsync that fails with EIO drops the unsynced bytes, as Linux does", "[sim][fs]") {
  duet::SimWorld world({.seed = 4, .fsync_eio = 1.0});
  const int fd = duet::sys::open("eio", O_RDWR | O_CREAT);
  REQUIRE(duet::sys::pwrite(fd, "abc", 3, 0) == 3);
  CHECK(duet::sys::fsync(fd) == -1);
  CHECK(errno == EIO);
  CHECK(duet::sys::file_size(fd) == 0);
  duet::sys::close(fd);
}
