// fiber::with_timeout of a callable that takes no std::stop_token.
// expect: fiber::with_timeout calls fn(std::stop_token)
#include <chrono>

#include <duet/stackful/with_timeout.hpp>

void wrong() {
  duet::fiber::with_timeout([] { return 1; }, std::chrono::seconds(1));
}
