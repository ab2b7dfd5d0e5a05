// chat_room.hpp — the chat examples' room, shared by both voices and by both
// transports (chat_* over TCP lines, ws_chat_* over WebSocket messages).
//
// A member has a bounded outbox (a channel of queue_lines messages) that its
// own writer drains; broadcast() fills outboxes with try_send, which never
// waits, so a member that stops reading is dropped once its outbox is full and
// nobody else stalls. A stop only cancels the member's I/O; its reader and
// writer (or its one loop, over WebSocket) end later, on the loop's next
// turn. The loop's thread only.
#pragma once

#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace chat {

constexpr std::size_t queue_lines = 256;  // messages waiting for one member
constexpr std::size_t max_line = 4096;    // bytes of one message
using Line = std::shared_ptr<const std::string>;  // one copy, shared by every outbox

// Channel: duet::Channel<Line> (its constructor takes the loop first) or duet::fiber::Channel<Line>.
template <typename Channel>
struct Member {
  template <typename... LoopIfAny>
  explicit Member(LoopIfAny&... loop) : outbox_(loop..., queue_lines) {}
  Channel outbox_;
  std::stop_source stop_;  // ends the member's reader and writer (and their I/O)
  // A member served by one loop (ws_chat_*: a WebSocket takes one call at a
  // time) waits in receive with wake_'s token; a line for it, or its stop,
  // ends that wait, and it renews wake_ before it sends what was queued.
  std::stop_source wake_;

  void stop() {
    stop_.request_stop();
    wake_.request_stop();
  }
};

template <typename Member>
class Room {
 public:
  void join(Member& m) {
    members_.push_back(&m);
    if (closing_) m.stop();
  }
  void leave(Member& m) { std::erase(members_, &m); }
  void close() {
    closing_ = true;
    for (Member* m : members_) m->stop();
  }
  void broadcast(const Member& from, const Line& line) {
    for (Member* peer : members_) {
      if (peer == &from || peer->stop_.stop_requested()) continue;
      if (peer->outbox_.try_send(Line(line))) peer->wake_.request_stop();
      else peer->stop();  // full: it stopped reading
    }
  }

 private:
  std::vector<Member*> members_;
  bool closing_ = false;
};

}  // namespace chat
