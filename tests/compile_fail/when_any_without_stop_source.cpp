// when_any without the stop_source it stops the losers through.
// expect: when_any's first argument is a std::stop_source
#include <duet/task/when_any.hpp>

duet::Task<int> fetch(int x) { co_return x; }

duet::Task<void> wrong() { (void)co_await duet::when_any(fetch(1), fetch(2)); }
