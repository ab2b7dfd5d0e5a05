// duet::kv::PushSignal, duet::kv::ShardSignal — tie a session's wake-ups to an
// event of the driver's voice (duet::Event or duet::fiber::Event): one class,
// SessionSignal, over the session's two wakers.
//
// Contract
// - For its lifetime the session calls event.set(), on the connection's own
//   thread, when:
//   - PushSignal: a publish makes the subscriber's push queue non-empty (or
//     drops the subscriber at its output limit); the driver waits on the
//     event beside its recv;
//   - ShardSignal: whatever unblocks a session that is waiting_on_shards()
//     happens (a batch's replies, a job's reply, the shard's gate opening).
//     Made only while the session waits (the drivers' wait_shards), so an
//     idle connection carries no event. Installing it after seeing
//     waiting_on_shards() loses no wake-up: replies are messages run by this
//     same thread's loop, never between the check and the install.
// - The destructor uninstalls the waker, so a driver frame torn down early
//   leaves no dangling pointer in the session. Both the session and the event
//   must outlive the signal. The connection's shard's thread only.
//
//   duet::fiber::Event reported;
//   kv::ShardSignal signal(session, reported);
//   if (!reported.wait(stop)) return false;  // stopped; else session.process()
#pragma once

#include "kv/session.hpp"

namespace duet::kv {

template <typename Event, auto Install>
class SessionSignal {
 public:
  SessionSignal(Session& session, Event& event) noexcept : session_(session) {
    (session.*Install)([](void* e) noexcept { static_cast<Event*>(e)->set(); }, &event);
  }
  SessionSignal(const SessionSignal&) = delete;
  SessionSignal& operator=(const SessionSignal&) = delete;
  ~SessionSignal() { (session_.*Install)(nullptr, nullptr); }

 private:
  Session& session_;
};

template <typename Event>
using PushSignal = SessionSignal<Event, &Session::set_push_waker>;
template <typename Event>
using ShardSignal = SessionSignal<Event, &Session::set_shard_waker>;

}  // namespace duet::kv
