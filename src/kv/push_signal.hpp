// duet::kv::PushSignal — ties a subscriber session's pushes to an event of the
// driver's voice (duet::Event or duet::fiber::Event).
//
// Contract
// - For its lifetime, a publish that makes the session's push queue non-empty
//   (or drops the subscriber at its output limit) calls event.set(); the driver
//   waits on the event beside its recv. The destructor uninstalls the waker, so
//   a driver frame torn down early leaves no dangling pointer in the session.
// - Both the session and the event must outlive it. The server's thread only.
//
//   duet::fiber::Event pushed;
//   kv::PushSignal signal(session, pushed);
//   pushed.reset(); if (!session.has_pushes()) /* wait for recv or pushed */;
#pragma once

#include "kv/session.hpp"

namespace duet::kv {

template <typename Event>
class PushSignal {
 public:
  PushSignal(Session& session, Event& event) noexcept : session_(session) {
    session.set_push_waker([](void* e) noexcept { static_cast<Event*>(e)->set(); }, &event);
  }
  PushSignal(const PushSignal&) = delete;
  PushSignal& operator=(const PushSignal&) = delete;
  ~PushSignal() { session_.set_push_waker(nullptr, nullptr); }

 private:
  Session& session_;
};

}  // namespace duet::kv
