// duet-kv-stackless: the KV server driven by the stackless voice (Task<T>);
// the driver is kv/driver_stackless.cpp, which duet-kv-sim runs too.
#include "kv/drivers.hpp"
#include "kv/server_runtime.hpp"

int main(int argc, char** argv) {
  return duet::kv::ServerRuntime::main(argc, argv, "stackless", duet::kv::run_stackless_driver);
}
