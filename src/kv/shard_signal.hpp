// duet::kv::ShardSignal — ties a session's replies from other shards to an
// event of the driver's voice (duet::Event or duet::fiber::Event).
//
// Contract
// - For its lifetime, whatever unblocks a session that is waiting_on_shards()
//   (a batch's replies, a job's reply, the shard's gate opening) calls
//   event.set(), on the connection's own thread. The destructor uninstalls
//   the waker, so a driver frame torn down early leaves no dangling pointer.
// - Made only while the session waits (the drivers' wait_shards), so an idle
//   connection carries no event. Both the session and the event must outlive
//   it. The connection's shard's thread only.
// - Installing it after seeing waiting_on_shards() loses no wake-up: replies
//   are messages run by this same thread's loop, never between the check and
//   the install.
//
//   duet::fiber::Event reported;
//   kv::ShardSignal signal(session, reported);
//   if (!reported.wait(stop)) return false;  // stopped; else session.process()
#pragma once

#include "kv/session.hpp"

namespace duet::kv {

template <typename Event>
class ShardSignal {
 public:
  ShardSignal(Session& session, Event& event) noexcept : session_(session) {
    session.set_shard_waker([](void* e) noexcept { static_cast<Event*>(e)->set(); }, &event);
  }
  ShardSignal(const ShardSignal&) = delete;
  ShardSignal& operator=(const ShardSignal&) = delete;
  ~ShardSignal() { session_.set_shard_waker(nullptr, nullptr); }

 private:
  Session& session_;
};

}  // namespace duet::kv
