// duet::Shard — one thread of a ShardSet and the EventLoop it owns.
//
// Contract
// - A shard is made and owned by its ShardSet (shard_set.hpp); it lives as long
//   as the set. Its loop exists from the set's constructor (for a shard on the
//   calling thread: from ShardSet::run) until the set has stopped.
// - Thread rules: id(), set(), send(), post() from any thread. loop() and
//   stop_token() only on the shard's own thread (the loop's rule: submit,
//   cancel and run there only; debug builds check it).
// - post(fn) moves fn into one heap message (the only allocation) and runs it
//   on the shard's thread in a later turn, in post order per posting thread.
//   An exception escaping fn is kept by the set and rethrown by
//   ShardSet::stop / join / run (the first one; later ones are dropped).
// - send(msg) is post without allocation: msg is intrusive (loop_message.hpp).
// - stop_token() is stopped, on the shard's thread, when the set is asked to
//   stop: long-running work should watch it. this_shard() is the shard of the
//   calling thread (nullptr off any shard), shard_count() its set's size (0).
//
//   duet::Shard& s = set.shard(1);
//   s.post([] { std::printf("on shard %zu\n", duet::this_shard()->id()); });
#pragma once

#include <cstddef>
#include <exception>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/io/loop_message.hpp"

namespace duet {

class ShardSet;
class Shard;

// The shard whose thread is calling, or nullptr.
[[nodiscard]] Shard* this_shard() noexcept;
// How many shards the calling thread's set has (0 off any shard).
[[nodiscard]] std::size_t shard_count() noexcept;

class Shard {
 public:
  Shard(ShardSet& set, std::size_t id) noexcept : set_(&set), id_(id) {}
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;
  Shard(Shard&&) = delete;
  Shard& operator=(Shard&&) = delete;
  ~Shard() = default;

  [[nodiscard]] std::size_t id() const noexcept { return id_; }
  [[nodiscard]] ShardSet& set() const noexcept { return *set_; }
  // The shard's loop: on the shard's thread only.
  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }
  [[nodiscard]] std::stop_token stop_token() const noexcept { return stop_.get_token(); }
  [[nodiscard]] bool is_current() const noexcept { return this_shard() == this; }

  void send(LoopMessage& msg) noexcept { loop_->send(msg); }

  template <typename F>
  void post(F&& fn) {
    static_assert(std::is_invocable_v<std::decay_t<F>&>, "post(fn): fn must be callable with no arguments");
    send(*new Posted<std::decay_t<F>>(*this, std::forward<F>(fn)));
  }

  // Keeps the first exception for the set (any thread).
  void report(std::exception_ptr error) noexcept;

 private:
  friend class ShardSet;
  friend struct ShardHost;

  template <typename F>
  struct Posted final : LoopMessage {
    Posted(Shard& shard, F&& fn) : shard_(&shard), fn_(std::move(fn)) { run_ = &run; }
    Posted(Shard& shard, const F& fn) : shard_(&shard), fn_(fn) { run_ = &run; }
    static void run(LoopMessage* msg) noexcept {
      auto* self = static_cast<Posted*>(msg);
      try {
        self->fn_();
      } catch (...) {
        self->shard_->report(std::current_exception());
      }
      delete self;
    }
    Shard* shard_;
    F fn_;
  };

  ShardSet* set_;
  std::size_t id_;
  EventLoop* loop_ = nullptr;
  struct StopMessage final : LoopMessage {
    Shard* shard_ = nullptr;
  };

  std::stop_source stop_;
  StopMessage stop_msg_;
  std::size_t idle_in_flight_ = 0;  // ops the host keeps in flight while idle
  bool (*host_idle_)(void*) = nullptr;  // the host's own "nothing to do" (fibers)
  void* host_ctx_ = nullptr;
  // The set's stop count (shard_set.cpp), all on the shard's thread:
  bool heard_stop_ = false;    // its stop message has run
  bool counts_live_ = false;   // its counts are in the set's counter, and go there live
  bool counted_busy_ = false;  // stopping: this shard holds one unit of the set's count
};

}  // namespace duet
