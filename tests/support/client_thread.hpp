// ClientThread<R>: runs a blocking client f() on a thread of its own beside a
// server's loop on the test's thread; done() tells the server's side it may
// stop, result() joins and gives f's value or rethrows its exception there
// (Catch2's assertions are for the test's thread only: f throws instead).
//
//   duet::test::ClientThread<std::string> client([port] { return fetch(port); });
//   while (!client.done()) run_a_turn();
//   CHECK(client.result() == "hello");
#pragma once

#include <atomic>
#include <exception>
#include <optional>
#include <thread>
#include <utility>

namespace duet::test {

template <typename R>
class ClientThread {
 public:
  template <typename F>
  explicit ClientThread(F f)
      : thread_([this, f = std::move(f)]() mutable {
          try {
            result_.emplace(f());
          } catch (...) {
            error_ = std::current_exception();
          }
          done_.store(true, std::memory_order_release);
        }) {}
  ClientThread(const ClientThread&) = delete;
  ClientThread& operator=(const ClientThread&) = delete;
  ~ClientThread() {
    if (thread_.joinable()) thread_.join();
  }

  [[nodiscard]] bool done() const noexcept { return done_.load(std::memory_order_acquire); }
  R result() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
    return std::move(*result_);
  }

 private:
  std::atomic<bool> done_{false};
  std::optional<R> result_;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts once the rest is built
};

}  // namespace duet::test
