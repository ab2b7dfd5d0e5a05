// duet::fiber::File on both backends: the stackless File's scenarios as plain
// blocking calls on fibers (io_uring: ring ops; epoll: the blocking pool).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <duet/io/aligned_buffer.hpp>
#include <duet/runtime/blocking_pool.hpp>
#include <duet/stackful/file.hpp>
#include <duet/stackful/offload.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/stackful/this_fiber.hpp>
#include "support/fifo_rescue.hpp"
#include "support/payload.hpp"
#include "support/temp_dir.hpp"
#include "support/on_fibers.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::fiber::File;
using duet::fiber::Scheduler;
namespace fiber = duet::fiber;

using duet::test::on_fibers;

namespace {

constexpr int create_rw = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;

}  // namespace

TEST_CASE("a fiber reads back what it wrote to a file, with its size", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  const std::string data = duet::test::patterned_payload(200 * 1024 + 3);
  const std::string got = on_fibers(backend, [&] {
    auto f = File::open(dir.file("a.bin"), create_rw, 0600);
    REQUIRE(f.ok());
    CHECK(f->write_all(data, 0).value() == data.size());
    CHECK(f->fdatasync().ok());
    CHECK(f->fsync().ok());
    auto st = f->stat();
    CHECK(st.value().size == data.size());
    auto text = f->read_all().value();
    CHECK(f->close().ok());
    return text;
  });
  CHECK(got == data);
}

TEST_CASE("a fiber's read near the end of a file is short and past the end is eof", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  on_fibers(backend, [&] {
    auto f = File::open(dir.file("short"), create_rw);
    REQUIRE(f.ok());
    CHECK(f->write(std::string_view("0123456789")).value() == 10);
    char buf[8];
    CHECK(f->read_at(buf, 6).value() == 4);
    CHECK(std::string_view(buf, 4) == "6789");
    CHECK(f->read_at(buf, 10).eof());
    CHECK(f->read(buf).eof());  // the position is at the end after the write
    return 0;
  });
}

TEST_CASE("a fiber gets ENOENT and EISDIR as values and opens relative to a directory fd", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  const int dir_fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(dir_fd >= 0);
  on_fibers(backend, [&] {
    CHECK(File::open(dir.file("nope")).error() == std::errc::no_such_file_or_directory);
    CHECK(File::open(dir.path(), O_WRONLY).error() == std::errc::is_a_directory);
    auto rel = File::open_at(dir_fd, "rel", create_rw);
    CHECK(rel.ok());
    return 0;
  });
  CHECK(::access(dir.file("rel").c_str(), F_OK) == 0);
  ::close(dir_fd);
}

TEST_CASE("32 fibers reading one file at once each get their own block", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  constexpr std::size_t block = 4096;
  constexpr std::size_t blocks = 32;
  const std::string data = duet::test::patterned_payload(block * blocks);
  const std::size_t good = on_fibers(backend, [&] {
    auto f = File::open(dir.file("blocks"), create_rw);
    REQUIRE(f->write_all(data, 0).ok());
    std::vector<fiber::Fiber<bool>> readers;
    for (std::size_t i = 0; i < blocks; ++i) {
      readers.push_back(fiber::spawn([&, i] {
        std::string got(block, '\0');
        auto n = f->read_at(std::span<char>(got), i * block);
        return n.ok() && *n == block && got == data.substr(i * block, block);
      }));
    }
    std::size_t ok = 0;
    for (auto& r : readers) ok += r.join() ? 1 : 0;
    return ok;
  });
  CHECK(good == blocks);
}

TEST_CASE("a stop request cancels a fiber's file read that is still waiting", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  duet::BlockingPool pool({.threads = 1});
  std::atomic<bool> open_gate{false};
  const std::error_code error = on_fibers(backend, [&] {
    // io_uring: the read waits in the kernel on an empty FIFO; epoll: in the
    // pool's queue behind a job holding its only thread.
    auto holder = fiber::spawn([&] {
      (void)fiber::offload(pool, [&] {
        for (int i = 0; i < 5000 && !open_gate; ++i) std::this_thread::sleep_for(1ms);
      });
      return 0;
    });
    fiber::yield();  // the holder's job reaches the pool first
    std::stop_source stop;
    auto stopper = fiber::spawn([&] {
      for (int i = 0; i < 5; ++i) (void)fiber::offload([] {});
      stop.request_stop();
      return 0;
    });
    File fifo(Scheduler::current()->loop(), ::open(dir.file("fifo").c_str(), O_RDWR | O_CLOEXEC), &pool);
    char buf[16];
    auto r = fifo.read(buf, stop.get_token());
    open_gate = true;
    stopper.join();
    holder.join();
    return r.error();
  });
  CHECK(error == std::errc::operation_canceled);
}

TEST_CASE("a stop request ends fibers' file reads blocked on a FIFO, and other file calls run while they block",
          "[file]") {
  // As in the stackless voice: on epoll the two reads hold both threads of the
  // pool in read(2); the regular file's calls behind them still complete.
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  duet::BlockingPool pool({.threads = 2});
  duet::test::FifoRescue rescue(fifo, 3s);
  std::stop_source stop;
  int reads_ended = 0;
  std::vector<std::error_code> errors;
  const bool served = on_fibers(backend, [&] {
    auto stuck_read = [&] {
      File f(Scheduler::current()->loop(), ::open(fifo.c_str(), O_RDWR | O_CLOEXEC), &pool);
      char buf[16];
      auto r = f.read(buf, stop.get_token());
      ++reads_ended;
      return r.error();
    };
    auto first = fiber::spawn(stuck_read);
    auto second = fiber::spawn(stuck_read);
    fiber::yield();  // both reads reach the pool before the open
    auto f = File::open(dir.file("other"), create_rw, 0600, {}, &pool);
    REQUIRE(f.ok());
    auto written = f->write_all(std::string_view("still served"), 0);
    auto text = f->read_all();
    const bool ok = reads_ended == 0 && written.ok() && text.value() == "still served";
    stop.request_stop();
    errors = {first.join(), second.join()};
    return ok;
  });
  CHECK(served);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == std::errc::operation_canceled);
  CHECK(errors[1] == std::errc::operation_canceled);
  CHECK_FALSE(rescue.dismiss());  // the stop ended the reads, not the rescue's bytes
}

TEST_CASE("a fiber reads and writes O_DIRECT blocks through an AlignedBuffer", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  const bool same = on_fibers(backend, [&] {
    auto f = File::open(dir.file("direct"), create_rw | O_DIRECT);
    if (f.error() == std::errc::invalid_argument) return true;  // a file system without O_DIRECT (tmpfs)
    REQUIRE(f.ok());
    duet::AlignedBuffer out(8192);
    for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = static_cast<std::byte>(i % 251);
    CHECK(f->write_at(std::span<const std::byte>(out.bytes()), 0).value() == 8192);
    duet::AlignedBuffer in(4096);
    CHECK(f->read_at(in.bytes(), 4096).value() == 4096);
    return std::memcmp(in.data(), out.data() + 4096, 4096) == 0;
  });
  CHECK(same);
}

// The code docs/GUIDE.md quotes (tests/stackful/check_guide_stackful.py keeps the two equal).
namespace guide {

// guide:begin fiber_file_append
duet::IoResult<std::size_t> append_line(const std::string& path, std::string_view line) {
  auto file = duet::fiber::File::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (!file) return file.error();  // no_such_file_or_directory, permission_denied, ...
  auto written = file->write_all(line);
  if (!written) return written.error();
  if (auto synced = file->fdatasync(); !synced) return synced.error();  // on disk before we say so
  return *written;
}

std::size_t count_lines(const std::string& path) {
  auto text = duet::fiber::File::open(path).value().read_all();
  return text ? static_cast<std::size_t>(std::count(text->begin(), text->end(), '\n')) : 0;
}
// guide:end

// guide:begin fiber_connect_by_name
void ping_by_name(const std::string& host, std::uint16_t port) {
  auto conn = duet::fiber::TcpStream::connect(host, port);  // every address of host, in order
  if (!conn) {
    std::fprintf(stderr, "%s: %s\n", host.c_str(), conn.error().message().c_str());  // "Name or service not known"
    return;
  }
  (void)conn->send_all(std::string_view("PING\r\n"));
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber file snippets append lines durably and count them", "[file]") {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  duet::test::TempDir dir("duet-fiber-file");
  const std::size_t lines = on_fibers(backend, [&] {
    for (int i = 0; i < 3; ++i) CHECK(guide::append_line(dir.file("log"), "line\n").value() == 5);
    guide::ping_by_name("no-such-host.invalid", 6379);  // prints the resolver's error
    return guide::count_lines(dir.file("log"));
  });
  CHECK(lines == 3);
}
