// examples::ensure_hooks(argv) — makes sure libduet_hook is in the process,
// for the examples that run unmodified blocking libraries (hiredis) on fibers.
//
// Linked (meson links it to these examples), it is there already; otherwise
// the program re-executes itself once with LD_PRELOAD set to the build tree's
// copy (DUET_HOOK_LIB overrides the path), and gives up with status 2 if the
// preload did not take.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace examples {

inline void ensure_hooks(char** argv) {
  if (::dlsym(RTLD_DEFAULT, "duet_hook_installed") != nullptr) return;
  if (std::getenv("DUET_HOOK_REEXEC") != nullptr) {
    std::fprintf(stderr, "libduet_hook could not be preloaded; set DUET_HOOK_LIB to its path\n");
    std::exit(2);
  }
  std::string lib = std::getenv("DUET_HOOK_LIB") != nullptr ? std::getenv("DUET_HOOK_LIB") : "";
  if (lib.empty()) {  // the build tree's layout, else the library search path
    char self[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string dir = std::string(self, n > 0 ? static_cast<std::size_t>(n) : 0);
    lib = dir.substr(0, dir.rfind('/')) + "/../src/duet/stackful/hook/libduet_hook.so";
    if (::access(lib.c_str(), R_OK) != 0) lib = "libduet_hook.so";
  }
  ::setenv("LD_PRELOAD", lib.c_str(), 1);
  // An ASan build links its runtime first; a preloaded library would precede it.
  const char* asan = std::getenv("ASAN_OPTIONS");
  ::setenv("ASAN_OPTIONS", (std::string(asan != nullptr ? asan : "") + ":verify_asan_link_order=0").c_str(), 1);
  ::setenv("DUET_HOOK_REEXEC", "1", 1);
  ::execv("/proc/self/exe", argv);
  std::perror("execv");
  std::exit(2);
}

}  // namespace examples
