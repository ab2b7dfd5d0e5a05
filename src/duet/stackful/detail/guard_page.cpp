// The guard-page report. Runs inside a SIGSEGV handler on the alternate
// signal stack, so only async-signal-safe calls: write(2), sigaction(2) and
// reads of the running fiber's record (which sits at the *top* of its stack,
// far from the overflow at the bottom).
#include "duet/stackful/detail/guard_page.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <system_error>

#include "duet/stackful/scheduler.hpp"

namespace duet::fiber::detail {

namespace {

struct sigaction previous_action {};
constexpr std::size_t alt_stack_size = 64 * 1024;

// A tiny signal-safe line builder.
class Line {
 public:
  void text(const char* s) noexcept {
    while (*s != '\0' && used_ < sizeof(buf_)) buf_[used_++] = *s++;
  }
  void number(std::uint64_t value, unsigned base = 10) noexcept {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value % base];
      value /= base;
    } while (value != 0 && n < 24);
    while (n > 0 && used_ < sizeof(buf_)) buf_[used_++] = digits[--n];
  }
  void flush() const noexcept { (void)!::write(STDERR_FILENO, buf_, used_); }

 private:
  char buf_[256];
  std::size_t used_ = 0;
};

void report(const FiberRecord& fiber, const void* address) noexcept {
  Line line;
  line.text("duet: stack overflow in fiber #");
  line.number(fiber.id_);
  if (fiber.name_[0] != '\0') {
    line.text(" \"");
    line.text(fiber.name_);
    line.text("\"");
  }
  line.text(": it hit the guard page below its ");
  line.number(fiber.stack_.usable_size());
  line.text("-byte stack at 0x");
  line.number(reinterpret_cast<std::uintptr_t>(address), 16);
  line.text(" (raise SchedulerOptions::stack_size or move big buffers off the stack)\n");
  line.flush();
}

void on_fault(int /*signal*/, siginfo_t* info, void* /*context*/) {
  Scheduler* scheduler = Scheduler::current();
  const FiberRecord* fiber = scheduler != nullptr ? scheduler->running() : nullptr;
  if (fiber != nullptr && fiber->stack_.guard_contains(info->si_addr)) report(*fiber, info->si_addr);
  ::sigaction(SIGSEGV, &previous_action, nullptr);  // the fault repeats under the old handler
}

}  // namespace

void install_guard_handler() {
  // Checked on every Scheduler construction, not once: a test framework or the
  // application may have put its own handler in since. Ours chains to it.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  struct sigaction current {};
  ::sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &on_fault) return;
  struct sigaction action {};
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGSEGV, &action, &previous_action) != 0) {
    throw std::system_error(errno, std::generic_category(), "duet: cannot install the SIGSEGV handler");
  }
}

void* install_alt_stack() {
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return nullptr;
  void* memory = ::mmap(nullptr, alt_stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    throw std::system_error(errno, std::generic_category(), "duet: cannot map a signal stack");
  }
  stack_t mine{};
  mine.ss_sp = memory;
  mine.ss_size = alt_stack_size;
  if (::sigaltstack(&mine, nullptr) != 0) {
    const int error = errno;
    ::munmap(memory, alt_stack_size);
    throw std::system_error(error, std::generic_category(), "duet: sigaltstack failed");
  }
  return memory;
}

void remove_alt_stack(void* alt_stack) noexcept {
  if (alt_stack == nullptr) return;
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  ::sigaltstack(&off, nullptr);
  ::munmap(alt_stack, alt_stack_size);
}

}  // namespace duet::fiber::detail
