// duet-kv-stackful: the KV server driven by the stackful voice (fibers);
// the driver is kv/driver_stackful.cpp, which duet-kv-sim runs too.
#include "kv/drivers.hpp"
#include "kv/server_runtime.hpp"

int main(int argc, char** argv) {
  return duet::kv::ServerRuntime::main(argc, argv, "stackful", duet::kv::run_stackful_driver);
}
