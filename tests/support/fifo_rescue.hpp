// A bound on a test that leaves reads blocked on a FIFO: if the test has not
// dismissed it within `after`, it starts writing a byte to the FIFO every
// 20 ms, so reads that nothing else ended (a stop that did not reach them)
// return data and the test fails on its checks instead of hanging.
//
//   duet::test::FifoRescue rescue(dir.file("fifo"), 3s);
//   ... reads that a stop should end ...
//   CHECK_FALSE(rescue.dismiss());   // true: it had to write
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace duet::test {

class FifoRescue {
 public:
  FifoRescue(std::string path, std::chrono::milliseconds after) : path_(std::move(path)) {
    thread_ = std::thread([this, after] { watch(after); });
  }
  FifoRescue(const FifoRescue&) = delete;
  FifoRescue& operator=(const FifoRescue&) = delete;
  ~FifoRescue() { dismiss(); }

  // Stops it; true if it had written to the FIFO.
  bool dismiss() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return wrote_;
  }

 private:
  void watch(std::chrono::milliseconds after) {
    std::unique_lock lock(mutex_);
    if (cv_.wait_for(lock, after, [&] { return done_; })) return;
    const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(20), [&] { return done_; })) {
      if (fd >= 0 && ::write(fd, "x", 1) == 1) wrote_ = true;
    }
    if (fd >= 0) ::close(fd);
  }

  std::string path_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> wrote_{false};
  std::thread thread_;
};

}  // namespace duet::test
