// duet::kv::ServerOptions — the executables' command line.
//
// Contract
// - parse_server_options(argc, argv) reads --port, --bind, --unixsocket,
//   --unixsocketperm, --backend, --threads, --accept,
//   --maxclients, --requirepass, --proto-max-bulk-len, --loglevel, --hz, --help,
//   --appendonly, --appendfsync, --dir, --auto-aof-rewrite-percentage/-min-size,
//   the TLS flags (--tls-port, --tls-cert-file, --tls-key-file,
//   --tls-ca-cert-file, --tls-ca-cert-dir, --tls-auth-clients yes|no|optional,
//   as in Redis; a TLS port needs a certificate and key, and client
//   authentication (the default, yes) a CA)
//   (each as "--flag value" or "--flag=value") and validates every value. On a
//   bad flag it returns an error message naming the flag, the value and what
//   is allowed; nothing is printed and nothing exits here.
// - usage(program) is the --help text. Pure functions; any thread.
//
//   std::string error;
//   auto options = parse_server_options(argc, argv, error);
//   if (!options) { std::fprintf(stderr, "%s\n", error.c_str()); return 2; }
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "duet/io/backend.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "kv/server_state.hpp"

namespace duet::kv {

// The TLS listener, with Redis's flag names and meanings.
struct TlsServerOptions {
  int port = 0;  // 0: no TLS listener
  std::string cert_file;
  std::string key_file;
  std::string ca_cert_file;
  std::string ca_cert_dir;
  std::string auth_clients = "yes";  // yes: a valid client certificate is required; optional: checked if
                                     // sent; no: neither asked for nor accepted
};

struct ServerOptions {
  ServerConfig config;
  TlsServerOptions tls;
  Backend backend = Backend::io_uring;
  std::size_t threads = 1;                  // --threads: shards, one loop thread each
  AcceptMode accept = AcceptMode::reuse_port;  // --accept: how connections spread over them
  bool help = false;
};

[[nodiscard]] std::optional<ServerOptions> parse_server_options(int argc, const char* const* argv, std::string& error);
[[nodiscard]] std::string usage(std::string_view program);

}  // namespace duet::kv
