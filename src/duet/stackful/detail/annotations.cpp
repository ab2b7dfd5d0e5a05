#include "duet/stackful/detail/annotations.hpp"

#include <valgrind/valgrind.h>

namespace duet::fiber::detail {

namespace {
// Asked once: the client request itself is cheap, but the registration
// bookkeeping is only useful under valgrind.
bool ask_valgrind() noexcept { return RUNNING_ON_VALGRIND != 0; }
const bool under_valgrind = ask_valgrind();
}  // namespace

unsigned valgrind_register(const void* bottom, const void* top) noexcept {
  return under_valgrind ? VALGRIND_STACK_REGISTER(bottom, top) : 0;
}

void valgrind_deregister(unsigned id) noexcept {
  if (under_valgrind) VALGRIND_STACK_DEREGISTER(id);
}

}  // namespace duet::fiber::detail
