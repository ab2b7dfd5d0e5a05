// duet::detail::ChannelCore<T> — a bounded FIFO channel: the core of duet::Channel and duet::fiber::Channel.
//
// Contract
// - Holds up to capacity() values in a ring allocated once at construction
//   (none for capacity 0, a rendezvous: a value passes only from a waiting
//   sender straight to a receiver). Senders and receivers are each served in
//   arrival order; values leave in the order they were sent.
// - Two WaitCores, one per side (send_side(), recv_side()); a waiter's
//   node.payload_ points to its own std::optional<T> (in the awaiter or on the
//   fiber's stack): a sender's holds the value to send, a receiver's starts
//   empty. A hand-off moves the value between those slots, the ring and
//   nothing else, so a wait allocates nothing.
// - The outcome is in the slot: a granted sender whose slot is empty was
//   delivered; one whose slot still holds the value met close() (the value
//   stays with the sender). A granted receiver with a value got it; one with an
//   empty slot met a closed, drained channel.
// - close(): later sends fail; queued senders are granted with their value
//   kept; receivers drain the ring, then get "closed". A withdrawn sender
//   (stop, timeout, destroyed frame) keeps its value: a hand-off and a cancel
//   never both happen (the loop thread does one, then the other fails).
// - A receiver granted a value but destroyed before resuming gives it back to
//   the next queued receiver, or to the front of the ring if there is room;
//   otherwise the value is destroyed with its frame.
// - T's move must not throw (hand-offs run inside noexcept code). Loop thread only.
//
//   ChannelCore<int> ch(1);
//   int v = 7;  ch.try_send(v);  IoResult<int> r = ch.try_recv();   // *r == 7
#pragma once

#include <cassert>
#include <cstddef>
#include <memory>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>

#include "duet/io/detail/wait_core.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/wait_queue.hpp"

namespace duet::detail {

// What a channel's failed operations return (both voices).
inline std::error_code channel_closed() noexcept { return std::make_error_code(std::errc::broken_pipe); }
inline std::error_code channel_would_block() noexcept {
  return std::make_error_code(std::errc::resource_unavailable_try_again);
}

template <typename T>
class ChannelCore {
  static_assert(std::is_nothrow_move_constructible_v<T>, "duet: a channel's T must move without throwing");

 public:
  using Slot = std::optional<T>;

  explicit ChannelCore(std::size_t capacity)
      : ring_(capacity > 0 ? std::make_unique<Slot[]>(capacity) : nullptr), capacity_(capacity) {}
  ChannelCore(const ChannelCore&) = delete;
  ChannelCore& operator=(const ChannelCore&) = delete;
  ChannelCore(ChannelCore&&) = delete;
  ChannelCore& operator=(ChannelCore&&) = delete;
  // Waiters hold pointers to the core: destroying it under them is a bug.
  ~ChannelCore() {
    assert(senders_.queue_.empty() && receivers_.queue_.empty() && "duet: a channel destroyed with waiters");
  }

  WaitCore& send_side() noexcept { return senders_; }
  WaitCore& recv_side() noexcept { return receivers_; }

  // Moves from value only on success; closed or full leaves it with the caller.
  IoResult<void> try_send(T& value) noexcept {
    if (closed_) return channel_closed();
    if (WaitNode* receiver = receivers_.queue_.pop_front()) {
      slot(*receiver).emplace(std::move(value));
      Side::hand(*receiver);
      return {};
    }
    if (size_ == capacity_) return channel_would_block();
    push_back(std::move(value));
    return {};
  }
  IoResult<T> try_recv() noexcept {
    Slot into;
    if (take(into)) return std::move(*into);
    return closed_ ? channel_closed() : channel_would_block();
  }
  void close() noexcept {
    closed_ = true;
    while (WaitNode* node = receivers_.queue_.pop_front()) Side::hand(*node);
    while (WaitNode* node = senders_.queue_.pop_front()) Side::hand(*node);
  }
  [[nodiscard]] bool is_closed() const noexcept { return closed_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

  static Slot& slot(WaitNode& node) noexcept { return *static_cast<Slot*>(node.payload_); }

  // A wait's outcome as both voices return it (see the contract above).
  static IoResult<void> send_result(WaitState state, const Slot& value) noexcept {
    if (state != WaitState::granted) return wait_result(state);
    if (value) return channel_closed();
    return {};
  }
  static IoResult<T> recv_result(WaitState state, Slot& value) noexcept {
    if (state != WaitState::granted) return wait_result(state).error();
    if (!value) return channel_closed();
    return std::move(*value);
  }

 private:
  // One side's queue; arrive/give_back defer to the channel, which sees both.
  class Side final : public WaitCore {
   public:
    Side(ChannelCore& channel, bool sending) noexcept : channel_(&channel), sending_(sending) {}
    bool arrive(WaitNode& node) noexcept override {
      return sending_ ? channel_->arrive_send(node) : channel_->arrive_recv(node);
    }
    // No waiter is ever held back by another on a channel, so a withdrawal
    // only unlinks (compare SemaphoreCore, whose head can block the rest).
    bool withdraw(WaitNode& node, WaitState why) noexcept override {
      if (node.state_ != WaitState::queued) return false;
      queue_.remove(node);
      node.state_ = why;
      return true;
    }
    void give_back(WaitNode& node) noexcept override {
      if (!sending_) channel_->give_back_recv(node);
    }
    static void hand(WaitNode& node) noexcept { grant(node); }

    WaitQueue queue_;

   private:
    ChannelCore* channel_;
    bool sending_;
  };

  // Invariant: receivers wait only while the ring is empty and no sender
  // waits; senders wait only while the ring is full and no receiver waits.
  bool arrive_send(WaitNode& node) noexcept {
    Slot& value = slot(node);
    if (closed_ || try_send(*value)) {
      if (!closed_) value.reset();  // delivered: the moved-from shell goes now
      node.state_ = WaitState::granted;
      return true;
    }
    senders_.queue_.push_back(node);
    return false;
  }
  bool arrive_recv(WaitNode& node) noexcept {
    if (take(slot(node)) || closed_) {
      node.state_ = WaitState::granted;
      return true;
    }
    receivers_.queue_.push_back(node);
    return false;
  }
  // The next value into `into`: the ring's front (refilled from the first
  // waiting sender) or, on a rendezvous, straight from that sender.
  bool take(Slot& into) noexcept {
    WaitNode* sender = senders_.queue_.pop_front();
    if (size_ > 0) {
      into.emplace(pop_front());
      if (sender != nullptr) push_back(std::move(*slot(*sender)));
    } else if (sender != nullptr) {
      into.emplace(std::move(*slot(*sender)));
    } else {
      return false;
    }
    if (sender != nullptr) {
      slot(*sender).reset();
      Side::hand(*sender);
    }
    return true;
  }
  void give_back_recv(WaitNode& node) noexcept {
    Slot& value = slot(node);
    if (!value) return;  // granted "closed": nothing to give back
    if (WaitNode* receiver = receivers_.queue_.pop_front()) {
      slot(*receiver).emplace(std::move(*value));
      Side::hand(*receiver);
    } else if (size_ < capacity_) {
      head_ = (head_ + capacity_ - 1) % capacity_;
      ring_[head_].emplace(std::move(*value));
      ++size_;
    }
    value.reset();  // no room: destroyed with the frame, as documented
  }

  void push_back(T&& value) noexcept {
    ring_[(head_ + size_) % capacity_].emplace(std::move(value));
    ++size_;
  }
  T pop_front() noexcept {
    Slot& front = ring_[head_];
    T value = std::move(*front);
    front.reset();
    head_ = (head_ + 1) % capacity_;
    --size_;
    return value;
  }

  std::unique_ptr<Slot[]> ring_;
  std::size_t capacity_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  bool closed_ = false;
  Side senders_{*this, true};
  Side receivers_{*this, false};
};

// What both voices' Channel<T> offer without waiting: they derive from this
// and add only their waits (send/recv as awaiters or as blocking calls).
template <typename T>
class ChannelCalls {
 public:
  // Moves from value only on success: closed (broken_pipe) or full
  // (resource_unavailable_try_again) leaves it with the caller.
  IoResult<void> try_send(T& value) noexcept { return core_.try_send(value); }
  IoResult<void> try_send(T&& value) noexcept { return core_.try_send(value); }
  IoResult<T> try_recv() noexcept { return core_.try_recv(); }
  void close() noexcept { core_.close(); }
  [[nodiscard]] bool is_closed() const noexcept { return core_.is_closed(); }
  [[nodiscard]] std::size_t size() const noexcept { return core_.size(); }
  [[nodiscard]] std::size_t capacity() const noexcept { return core_.capacity(); }

 protected:
  explicit ChannelCalls(std::size_t capacity) : core_(capacity) {}
  ChannelCalls(const ChannelCalls&) = delete;
  ChannelCalls& operator=(const ChannelCalls&) = delete;
  ChannelCalls(ChannelCalls&&) = delete;
  ChannelCalls& operator=(ChannelCalls&&) = delete;
  ~ChannelCalls() = default;

  ChannelCore<T> core_;
};

}  // namespace duet::detail
