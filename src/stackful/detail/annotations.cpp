#include "stackful/detail/annotations.hpp"

#include <valgrind/valgrind.h>

namespace duet::fiber::detail {

unsigned valgrind_register(const void* bottom, const void* top) noexcept {
  return VALGRIND_STACK_REGISTER(bottom, top);
}

void valgrind_deregister(unsigned id) noexcept { VALGRIND_STACK_DEREGISTER(id); }

}  // namespace duet::fiber::detail
