// The KV server's two drivers: each voice's accept loop and `recv ->
// session.feed -> send`, over whatever ServerRuntime was given (the
// executables' main, or duet-kv-sim's simulated machine).
//
// Contract: run one on the thread that made rt; it opens the backend, binds,
// serves until a signal, SHUTDOWN or rt.request_stop(), and returns the exit
// status. ServerRuntime::on_listening runs the hook set_on_listening gave, on
// the driver's thread, once its loop is up.
//
//   return ServerRuntime::main(argc, argv, "stackless", duet::kv::run_stackless_driver);
#pragma once

namespace duet::kv {

class ServerRuntime;

int run_stackless_driver(ServerRuntime& rt);
int run_stackful_driver(ServerRuntime& rt);

}  // namespace duet::kv
