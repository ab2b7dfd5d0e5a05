// fiber::when_any of callables that take no std::stop_token: they could not be stopped.
// expect: give every callable a std::stop_token parameter
#include <duet/stackful/when_any.hpp>

void wrong() {
  (void)duet::fiber::when_any([] { return 1; }, [] { return 2; });
}
