// duet::File in the stackless voice, on both backends: io_uring runs each call
// as a ring op, epoll on the blocking pool; the values are the same.
// No co_await inside CHECK/REQUIRE: g++ evaluates the expression more than once there.
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
#include <duet/io/event_loop.hpp>
#include <duet/runtime/blocking_pool.hpp>
#include <duet/runtime/detail/file_request.hpp>
#include "support/fifo_rescue.hpp"
#include "support/payload.hpp"
#include "support/temp_dir.hpp"
#include <duet/task/file.hpp>
#include <duet/task/offload.hpp>
#include <duet/task/run.hpp>
#include <duet/task/tcp_stream.hpp>
#include <duet/task/task.hpp>
#include <duet/task/when_all.hpp>

using namespace std::chrono_literals;
using duet::Backend;
using duet::EventLoop;
using duet::File;
using duet::IoResult;
using duet::Task;

namespace {

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

constexpr int create_rw = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;

}  // namespace

TEST_CASE("a file written through File reads back the same bytes, with its size and mtime", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  const std::string data = duet::test::patterned_payload(300 * 1024 + 7);
  const auto before = std::chrono::system_clock::now() - 2s;
  auto body = [&]() -> Task<std::string> {
    auto f = co_await File::open(loop, dir.file("a.bin"), create_rw, 0600);
    REQUIRE(f.ok());
    auto written = co_await f->write_all(data, 0);
    CHECK(written.value() == data.size());
    auto datasynced = co_await f->fdatasync();
    auto synced = co_await f->fsync();
    CHECK((datasynced.ok() && synced.ok()));
    auto st = co_await f->stat();
    REQUIRE(st.ok());
    CHECK(st->size == data.size());
    CHECK(st->mtime >= before);
    CHECK(S_ISREG(st->mode));
    auto text = co_await f->read_all();
    auto closed = co_await f->close();
    CHECK(closed.ok());
    CHECK(!f->is_open());
    co_return text.value();
  };
  CHECK(duet::run_until_complete(loop, body()) == data);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a read near the end of a file is short and a read past the end is eof", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  auto body = [&]() -> Task<> {
    auto f = co_await File::open(loop, dir.file("short"), create_rw);
    REQUIRE(f.ok());
    auto written = co_await f->write_all(std::string_view("0123456789"), 0);
    CHECK(written.value() == 10);
    char buf[8];
    auto near_end = co_await f->read_at(buf, 6);
    CHECK(near_end.value() == 4);
    CHECK(std::string_view(buf, 4) == "6789");
    auto past_end = co_await f->read_at(buf, 10);
    CHECK(past_end.eof());
    auto empty = co_await File::open(loop, dir.file("empty"), create_rw);
    auto nothing = co_await empty->read_all();
    CHECK(nothing.value().empty());
  };
  duet::run_until_complete(loop, body());
}

TEST_CASE("a missing file and a directory opened for writing are errors as values", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  auto body = [&]() -> Task<> {
    auto missing = co_await File::open(loop, dir.file("nope"), O_RDONLY);
    CHECK(missing.error() == std::errc::no_such_file_or_directory);
    auto directory = co_await File::open(loop, dir.path(), O_WRONLY);
    CHECK(directory.error() == std::errc::is_a_directory);
  };
  duet::run_until_complete(loop, body());
}

TEST_CASE("open_at opens relative to a directory fd and read/write use the current position", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  const int dir_fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(dir_fd >= 0);
  auto body = [&]() -> Task<> {
    auto f = co_await File::open_at(loop, dir_fd, "rel.txt", create_rw, 0644);
    REQUIRE(f.ok());
    auto first = co_await f->write(std::string_view("abc"));
    auto second = co_await f->write(std::string_view("def"));
    CHECK((first.value() == 3 && second.value() == 3));
    char buf[16];
    auto n = co_await f->read(buf);  // the position is at the end now
    CHECK(n.eof());
    auto all = co_await f->read_all();
    CHECK(all.value() == "abcdef");
  };
  duet::run_until_complete(loop, body());
  CHECK(::access(dir.file("rel.txt").c_str(), F_OK) == 0);
  ::close(dir_fd);
}

TEST_CASE("32 concurrent reads of one file each get their own block", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  constexpr std::size_t block = 4096;
  constexpr std::size_t blocks = 32;
  const std::string data = duet::test::patterned_payload(block * blocks);
  auto body = [&]() -> Task<std::size_t> {
    auto f = co_await File::open(loop, dir.file("blocks"), create_rw);
    auto written = co_await f->write_all(data, 0);
    REQUIRE(written.ok());
    std::vector<std::string> got(blocks, std::string(block, '\0'));
    auto read_one = [&](std::size_t i) -> Task<bool> {
      auto n = co_await f->read_at(std::span<char>(got[i]), i * block);
      co_return n.ok() && *n == block && got[i] == data.substr(i * block, block);
    };
    std::vector<Task<bool>> reads;
    for (std::size_t i = blocks; i-- > 0;) reads.push_back(read_one(i));  // backwards: order must not matter
    std::size_t good = 0;
    for (bool ok : co_await duet::when_all(std::move(reads))) good += ok ? 1 : 0;
    co_return good;
  };
  CHECK(duet::run_until_complete(loop, body()) == blocks);
}

TEST_CASE("a stop request cancels a file read that is still waiting", "[file]") {
  // The read waits in the kernel (io_uring: a FIFO with no data) or in the
  // pool's queue (epoll: the pool's only thread is held by another job).
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  duet::BlockingPool pool({.threads = 1});
  std::atomic<bool> open_gate{false};
  std::stop_source stop;
  auto hold_pool = [&]() -> Task<> {
    (void)co_await duet::offload(pool, [&] {
      for (int i = 0; i < 5000 && !open_gate; ++i) std::this_thread::sleep_for(1ms);
    });
  };
  auto reader = [&]() -> Task<std::error_code> {
    // O_RDWR: a FIFO's open then never waits for a writer.
    File pooled(loop, ::open(dir.file("fifo").c_str(), O_RDWR | O_CLOEXEC), &pool);
    REQUIRE(pooled.is_open());
    char buf[16];
    auto r = co_await pooled.read(buf, stop.get_token());
    open_gate = true;
    co_return r.error();
  };
  auto stopper = [&]() -> Task<> {
    for (int i = 0; i < 5; ++i) co_await duet::offload([] {});  // a few turns: the read is waiting now
    stop.request_stop();
  };
  auto all = [&]() -> Task<std::error_code> {
    auto [held, error, stopped] = co_await duet::when_all(hold_pool(), reader(), stopper());
    co_return error;
  };
  CHECK(duet::run_until_complete(loop, all()) == std::errc::operation_canceled);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a stop request ends file reads blocked on a FIFO, and other file calls run while they block", "[file]") {
  // Two reads of a FIFO with no data: on io_uring they wait in the kernel; on
  // epoll each holds a thread of the pool in read(2), as many as it has. An
  // open, a write and a read of a regular file through the same pool still
  // complete meanwhile, and the stop reaches the reads where they run.
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  duet::BlockingPool pool({.threads = 2});
  duet::test::FifoRescue rescue(fifo, 3s);
  std::stop_source stop;
  int reads_ended = 0;
  auto stuck_read = [&]() -> Task<std::error_code> {
    File f(loop, ::open(fifo.c_str(), O_RDWR | O_CLOEXEC), &pool);  // O_RDWR: no wait for a writer
    char buf[16];
    auto r = co_await f.read(buf, stop.get_token());
    ++reads_ended;
    co_return r.error();
  };
  auto meanwhile = [&]() -> Task<bool> {  // queued behind the reads on epoll
    auto f = co_await File::open(loop, dir.file("other"), create_rw, 0600, {}, &pool);
    REQUIRE(f.ok());
    auto written = co_await f->write_all(std::string_view("still served"), 0);
    auto text = co_await f->read_all();
    const bool served = reads_ended == 0 && written.ok() && text.value() == "still served";
    stop.request_stop();
    co_return served;
  };
  auto all = [&]() -> Task<bool> {
    auto [first, second, served] = co_await duet::when_all(stuck_read(), stuck_read(), meanwhile());
    CHECK(first == std::errc::operation_canceled);
    CHECK(second == std::errc::operation_canceled);
    co_return served;
  };
  CHECK(duet::run_until_complete(loop, all()));
  CHECK_FALSE(rescue.dismiss());  // the stop ended the reads, not the rescue's bytes
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a token already stopped fails a file call at once", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  std::stop_source stop;
  stop.request_stop();
  auto body = [&]() -> Task<std::error_code> {
    auto f = co_await File::open(loop, dir.file("x"), create_rw, 0644, stop.get_token());
    co_return f.error();
  };
  CHECK(duet::run_until_complete(loop, body()) == std::errc::operation_canceled);
  CHECK(::access(dir.file("x").c_str(), F_OK) != 0);
}

TEST_CASE("O_DIRECT reads and writes aligned blocks through an AlignedBuffer", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  auto body = [&]() -> Task<bool> {
    auto f = co_await File::open(loop, dir.file("direct"), create_rw | O_DIRECT);
    if (f.error() == std::errc::invalid_argument) co_return true;  // a file system without O_DIRECT (tmpfs)
    REQUIRE(f.ok());
    duet::AlignedBuffer out(8192);
    for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = static_cast<std::byte>(i % 251);
    auto written = co_await f->write_at(std::span<const std::byte>(out.bytes()), 4096);
    CHECK(written.value() == 8192);
    duet::AlignedBuffer in(4096);
    auto n = co_await f->read_at(in.bytes(), 8192);
    CHECK(n.value() == 4096);
    co_return std::memcmp(in.data(), out.data() + 4096, 4096) == 0;
  };
  CHECK(duet::run_until_complete(loop, body()));
}

TEST_CASE("abandoning a waiting file request withdraws it without calling back", "[file]") {
  // What a destroyed frame's awaiter does: the read waits in the kernel (FIFO,
  // io_uring) or in the pool's queue (epoll); abandon returns its end.
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  duet::BlockingPool pool({.threads = 1});
  std::atomic<bool> open_gate{false};
  std::atomic<bool> held{false};
  auto hold_pool = [&]() -> Task<> {
    (void)co_await duet::offload(pool, [&] {
      held = true;
      for (int i = 0; i < 5000 && !open_gate; ++i) std::this_thread::sleep_for(1ms);
    });
  };
  auto abandon_read = [&]() -> Task<int> {
    const int fd = ::open(dir.file("fifo").c_str(), O_RDWR | O_CLOEXEC);
    char buf[16];
    int called = 0;
    int res = 0;
    {
      duet::detail::FileRequest request;
      request.set_pool(&pool);
      duet::describe_read(request.op(), fd, buf, sizeof buf, -1);
      while (!held) std::this_thread::sleep_for(1ms);  // the pool's thread is busy: the read queues
      request.start(loop, [](duet::detail::FileRequest* r, int) noexcept { ++*static_cast<int*>(r->owner()); },
                    &called);
      for (int i = 0; i < 3; ++i) co_await duet::offload([] {});  // a few turns: it is waiting now
      CHECK(request.in_flight());
      res = request.abandon();
      CHECK_FALSE(request.in_flight());
    }
    open_gate = true;
    ::close(fd);
    CHECK(called == 0);
    co_return res;
  };
  auto both = [&]() -> Task<int> {
    auto [held_done, res] = co_await duet::when_all(hold_pool(), abandon_read());
    co_return res;
  };
  CHECK(duet::run_until_complete(loop, both()) == -ECANCELED);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a close that is never awaited still closes the file's fd", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  auto body = [&]() -> Task<int> {
    auto f = co_await File::open(loop, dir.file("c"), create_rw);
    REQUIRE(f.ok());
    const int fd = f->native_handle();
    { auto dropped = f->close(); }  // made, never awaited
    co_return fd;
  };
  const int fd = duet::run_until_complete(loop, body());
  CHECK(::fcntl(fd, F_GETFD) == -1);
}

// The code docs/GUIDE.md quotes (tests/io/check_guide.py keeps the two equal).
namespace guide {

// guide:begin task_file_append
duet::Task<duet::IoResult<std::size_t>> append_line(duet::EventLoop& loop, std::string path, std::string line) {
  auto file = co_await duet::File::open(loop, std::move(path), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (!file) co_return file.error();  // no_such_file_or_directory, permission_denied, ...
  auto written = co_await file->write_all(line);
  if (!written) co_return written.error();
  auto synced = co_await file->fdatasync();  // on disk before we say so
  if (!synced) co_return synced.error();
  co_return *written;
}

duet::Task<std::size_t> count_lines(duet::EventLoop& loop, std::string path) {
  auto file = co_await duet::File::open(loop, std::move(path));
  if (!file) co_return 0;
  auto text = co_await file->read_all();
  co_return text ? static_cast<std::size_t>(std::count(text->begin(), text->end(), '\n')) : 0;
}
// guide:end

// guide:begin task_connect_by_name
duet::Task<> ping_by_name(duet::EventLoop& loop, std::string host, std::uint16_t port) {
  auto conn = co_await duet::TcpStream::connect(loop, host, port);  // every address of host, in order
  if (!conn) {
    std::fprintf(stderr, "%s: %s\n", host.c_str(), conn.error().message().c_str());  // "Name or service not known"
    co_return;
  }
  (void)co_await conn->send_all(std::string_view("PING\r\n"));
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's file snippets append lines durably and count them", "[file]") {
  EventLoop loop(any_backend());
  duet::test::TempDir dir("duet-file");
  auto body = [&]() -> Task<std::size_t> {
    for (int i = 0; i < 3; ++i) {
      auto n = co_await guide::append_line(loop, dir.file("log"), "line\n");
      REQUIRE(n.value() == 5);
    }
    co_await guide::ping_by_name(loop, "no-such-host.invalid", 6379);  // prints the resolver's error
    co_return co_await guide::count_lines(loop, dir.file("log"));
  };
  CHECK(duet::run_until_complete(loop, body()) == 3);
}
