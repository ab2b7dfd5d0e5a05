// Guarded pooled stacks: guard page, lazy commit, pooling, overflow report,
// failure to map reported as std::system_error.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include <catch2/catch.hpp>

#include "duet/stackful/detail/annotations.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/stack.hpp"
#include "duet/stackful/stack_pool.hpp"
#include "duet/stackful/this_fiber.hpp"

namespace {

using duet::fiber::Scheduler;
using duet::fiber::SchedulerOptions;
using duet::fiber::Stack;
using duet::fiber::StackPool;

// Recursion that the optimiser cannot flatten: each frame owns 512 bytes.
// `lowest` records the deepest frame address reached; the deepest frame calls
// at_bottom, if given.
[[gnu::noinline]] std::size_t descend(std::size_t depth, std::uintptr_t* lowest = nullptr,
                                      void (*at_bottom)() = nullptr) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (lowest != nullptr) *lowest = reinterpret_cast<std::uintptr_t>(&frame[0]);
  if (depth == 0) {
    if (at_bottom != nullptr) at_bottom();
    return static_cast<std::size_t>(frame[0]);
  }
  return descend(depth - 1, lowest, at_bottom) + 1 + static_cast<std::size_t>(frame[0] - static_cast<char>(depth));
}

// The running fiber's depth (in descend frames) that leaves `room` bytes of its
// stack free below the deepest frame. Measures this build's frame size first
// (sanitizers make frames bigger).
std::size_t depth_leaving(std::size_t room) {
  std::uintptr_t one = 0;
  std::uintptr_t nine = 0;
  descend(1, &one);
  descend(9, &nine);
  const std::size_t frame = (one - nine) / 8;
  const auto bottom = reinterpret_cast<std::uintptr_t>(Scheduler::current()->running()->stack_.bottom());
  return (one - bottom - room) / frame;
}

// A 64 KiB frame whose first write is at its far (lowest) end, as in code that
// fills a local buffer from its start.
[[gnu::noinline]] void big_frame() {
  volatile char frame[64 * 1024];
  frame[0] = 1;
  frame[sizeof frame - 1] = frame[0];
}

struct ChildResult {
  int status = 0;
  std::string err;
};

// Runs fn in a forked child with stderr captured.
template <typename Fn>
ChildResult run_in_child(Fn fn) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    // The child is not a Catch2 test: drop the parent's fatal-signal handler
    // (it would report a failure on stdout) and its output.
    ::signal(SIGSEGV, SIG_DFL);
    std::freopen("/dev/null", "w", stdout);
    fn();
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  ChildResult result;
  char buf[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) result.err.append(buf, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  ::waitpid(pid, &result.status, 0);
  return result;
}

}  // namespace

TEST_CASE("a stack has a PROT_NONE guard of at least 64 KiB just below its usable area") {
  Stack stack = Stack::allocate(10000);
  CHECK(stack.usable_size() % Stack::page_size() == 0);
  CHECK(stack.usable_size() >= 10000);
  CHECK(Stack::guard_size() >= 64 * 1024);  // wider than a frame with a 64 KiB buffer in it
  CHECK(Stack::guard_size() % Stack::page_size() == 0);
  auto* bottom = static_cast<char*>(stack.bottom());
  CHECK(stack.guard_contains(bottom - 1));
  CHECK(stack.guard_contains(bottom - Stack::guard_size()));
  CHECK_FALSE(stack.guard_contains(bottom - Stack::guard_size() - 1));
  CHECK_FALSE(stack.guard_contains(bottom));
  std::vector<unsigned char> resident(Stack::guard_size() / Stack::page_size());
  CHECK(::mincore(bottom - Stack::guard_size(), Stack::guard_size(), resident.data()) == 0);  // mapped
  CHECK(::mprotect(bottom - Stack::guard_size(), Stack::guard_size(), PROT_NONE) == 0);
  bottom[0] = 1;  // the usable area is writable end to end
  static_cast<char*>(stack.top())[-1] = 1;
}

TEST_CASE("a pool hands released stacks back out instead of mapping new ones") {
  StackPool pool(64 * 1024, 2);
  Stack a = pool.acquire();
  void* a_top = a.top();
  pool.release(std::move(a));
  CHECK(pool.cached() == 1);
  Stack b = pool.acquire();
  CHECK(b.top() == a_top);
  CHECK(pool.cached() == 0);
  Stack c = pool.acquire();
  Stack d = pool.acquire();
  pool.release(std::move(b));
  pool.release(std::move(c));
  pool.release(std::move(d));  // over max_cached: unmapped
  CHECK(pool.cached() == 2);
  pool.trim();
  CHECK(pool.cached() == 0);
}

TEST_CASE("a fiber can recurse until close to the end of its stack") {
  constexpr std::size_t stack_size = 256 * 1024;
  Scheduler scheduler(SchedulerOptions{.stack_size = stack_size});
  auto fiber = scheduler.spawn([] {
    // Down to within 16 KiB of the guard (93% of the stack used).
    const std::size_t depth = depth_leaving(16 * 1024);
    const auto bottom = reinterpret_cast<std::uintptr_t>(Scheduler::current()->running()->stack_.bottom());
    std::uintptr_t lowest = 0;
    const bool right = descend(depth, &lowest) == depth;
    return right && lowest - bottom < 20 * 1024;
  });
  CHECK(fiber.join());
}

TEST_CASE("a stack overflow into the guard page is reported naming the fiber") {
  ChildResult child = run_in_child([] {
    Scheduler scheduler(SchedulerOptions{.stack_size = 64 * 1024});
    auto fiber = scheduler.spawn([] {
      duet::fiber::set_name("deep-diver");
      return descend(1'000'000);
    });
    (void)fiber.join();
  });
  INFO(child.err);
  CHECK(child.err.find("stack overflow in fiber #1 \"deep-diver\"") != std::string::npos);
  CHECK(child.err.find("guard page") != std::string::npos);
  const bool died = WIFSIGNALED(child.status) || (WIFEXITED(child.status) && WEXITSTATUS(child.status) != 0);
  CHECK(died);
}

TEST_CASE("a 64 KiB frame deep in a fiber faults on the guard instead of writing into the mapping below") {
  // The mapping below the guard is shared with this process, so what the
  // child wrote there can be checked after it died.
  constexpr std::size_t below_size = 256 * 1024;
  const int below_fd = ::memfd_create("duet-below-the-guard", 0);
  REQUIRE(below_fd >= 0);
  REQUIRE(::ftruncate(below_fd, below_size) == 0);
  void* view = ::mmap(nullptr, below_size, PROT_READ | PROT_WRITE, MAP_SHARED, below_fd, 0);
  REQUIRE(view != MAP_FAILED);
  std::memset(view, 0x5a, below_size);
  ChildResult child = run_in_child([below_fd] {
    Scheduler scheduler(SchedulerOptions{.stack_size = 64 * 1024});
    // The next fiber gets the stack released last; give it one with the
    // shared mapping right below its guard (the kernel may have put another
    // mapping there: then try a new stack, keeping the old one out of the way).
    std::vector<Stack> taken;
    for (int i = 0; i < 32 && scheduler.stacks().cached() == 0; ++i) {
      Stack stack = Stack::allocate(64 * 1024);
      char* guard = static_cast<char*>(stack.bottom()) - Stack::guard_size();
      void* below = ::mmap(guard - below_size, below_size, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_FIXED_NOREPLACE, below_fd, 0);
      if (below == MAP_FAILED) {
        taken.push_back(std::move(stack));
      } else {
        scheduler.stacks().release(std::move(stack));
      }
    }
    if (scheduler.stacks().cached() == 0) ::_exit(3);  // no room found: no test
    auto fiber = scheduler.spawn([] { descend(depth_leaving(8 * 1024), nullptr, &big_frame); });
    fiber.join();
    ::_exit(0);  // the frame skipped the guard without a fault
  });
  INFO("child status " << child.status << ", stderr: " << child.err);
  REQUIRE_FALSE((WIFEXITED(child.status) && WEXITSTATUS(child.status) == 3));
  const bool died_of_segv = WIFSIGNALED(child.status) && WTERMSIG(child.status) == SIGSEGV;
  CHECK(died_of_segv);
  CHECK(child.err.find("hit the guard page") != std::string::npos);
  const auto* bytes = static_cast<const unsigned char*>(view);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < below_size; ++i) changed += bytes[i] != 0x5a ? 1 : 0;
  CHECK(changed == 0);
  ::munmap(view, below_size);
  ::close(below_fd);
}

TEST_CASE("running out of mappings throws a system_error that says why") {
  if (duet::fiber::detail::asan_enabled) return;  // ASan's shadow memory needs more address space than the limit
  ChildResult child = run_in_child([] {
    rlimit limit{64 * 1024 * 1024, 64 * 1024 * 1024};
    std::vector<Stack> stacks;
    try {
      ::setrlimit(RLIMIT_AS, &limit);  // memory runs out long before 10,000 stacks of 1 MiB
      for (int i = 0; i < 10000; ++i) stacks.push_back(Stack::allocate(1024 * 1024));
    } catch (const std::system_error& error) {
      const std::string what = error.what();
      const bool clear = error.code() == std::errc::not_enough_memory &&
                         what.find("fiber stack") != std::string::npos &&
                         what.find("vm.max_map_count") != std::string::npos;
      ::_exit(clear ? 42 : 1);
    }
    ::_exit(2);
  });
  REQUIRE(WIFEXITED(child.status));
  CHECK(WEXITSTATUS(child.status) == 42);
}

TEST_CASE("a fiber that has yielded has committed at most two pages of its stack") {
  Scheduler scheduler;
  auto fiber = scheduler.spawn([] {
    duet::fiber::yield();
    const Stack& stack = Scheduler::current()->running()->stack_;
    std::vector<unsigned char> pages(stack.usable_size() / Stack::page_size());
    if (::mincore(stack.bottom(), stack.usable_size(), pages.data()) != 0) return std::size_t{999};
    std::size_t resident = 0;
    for (unsigned char page : pages) resident += page & 1u;
    return resident;
  });
  const std::size_t resident = fiber.join();
  CHECK(resident >= 1);
  CHECK(resident * Stack::page_size() <= 8 * 1024);
}
