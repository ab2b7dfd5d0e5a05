// AlarmGuard: alarm(seconds) for the guard's scope. A fiber combinator that
// never stops its children blocks the test forever; under the alarm SIGALRM's
// default action ends the binary instead ("Alarm clock"), and meson reports it.
//
//   const duet::test::AlarmGuard alarm;   // 20 s for this test case
#pragma once

#include <unistd.h>

namespace duet::test {

class AlarmGuard {
 public:
  explicit AlarmGuard(unsigned seconds = 20) noexcept { ::alarm(seconds); }
  AlarmGuard(const AlarmGuard&) = delete;
  AlarmGuard& operator=(const AlarmGuard&) = delete;
  AlarmGuard(AlarmGuard&&) = delete;
  AlarmGuard& operator=(AlarmGuard&&) = delete;
  ~AlarmGuard() { ::alarm(0); }
};

}  // namespace duet::test
