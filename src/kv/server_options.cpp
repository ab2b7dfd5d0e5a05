#include "kv/server_options.hpp"

#include <charconv>
#include <functional>

#include "duet/io/socket_address.hpp"
#include "kv/detail/numbers.hpp"
#include "kv/notify.hpp"

namespace duet::kv {
namespace {

bool parse_uint(std::string_view text, std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
  std::int64_t v = 0;
  if (!detail::parse_i64(text, v) || v < 0) return false;
  out = static_cast<std::uint64_t>(v);
  return out >= min && out <= max;
}

using Setter = std::function<bool(ServerOptions&, std::string_view)>;

struct Flag {
  std::string_view name;
  std::string_view allowed;  // for the error message
  Setter set;
};

const Flag flags[] = {
    {"port", "an integer 0..65535 (0 picks a free port)",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 0, 65535, n) && (o.config.port = static_cast<int>(n), true);
     }},
    {"bind", "a numeric IPv4/IPv6 address or localhost",
     [](ServerOptions& o, std::string_view v) { return !v.empty() && (o.config.bind.assign(v), true); }},
    {"unixsocket", "a socket file path (or @name, abstract) of at most 107 bytes",
     [](ServerOptions& o, std::string_view v) {
       return SocketAddress::unix_domain(v).has_value() && (o.config.unixsocket.assign(v), true);
     }},
    {"unixsocketperm", "an octal mode 0..777, e.g. 700",
     [](ServerOptions& o, std::string_view v) {
       unsigned mode = 0;
       auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), mode, 8);
       return !v.empty() && ec == std::errc{} && end == v.data() + v.size() && mode <= 0777 &&
              (o.config.unixsocketperm = mode, true);
     }},
    {"backend", "io_uring or epoll",
     [](ServerOptions& o, std::string_view v) {
       auto b = parse_backend(v);
       return b.has_value() && (o.backend = *b, true);
     }},
    {"threads", "an integer 1..64 (one shard, loop and thread each)",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 1, 64, n) && (o.threads = n, true);
     }},
    {"accept", "reuseport or single",
     [](ServerOptions& o, std::string_view v) {
       auto mode = parse_accept_mode(v);
       return mode.has_value() && (o.accept = *mode, true);
     }},
    {"maxclients", "an integer >= 1",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 1, 1000000, n) && (o.config.maxclients = n, true);
     }},
    {"requirepass", "any password (empty disables AUTH)",
     [](ServerOptions& o, std::string_view v) { return o.config.requirepass.assign(v), true; }},
    {"proto-max-bulk-len", "a size >= 1mb, e.g. 536870912 or 512mb",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return detail::parse_memory(v, n) && n >= 1024 * 1024 && (o.config.proto_max_bulk_len = n, true);
     }},
    {"loglevel", "debug, verbose, notice or warning",
     [](ServerOptions& o, std::string_view v) {
       bool ok = v == "debug" || v == "verbose" || v == "notice" || v == "warning";
       return ok && (o.config.loglevel.assign(v), true);
     }},
    {"appendonly", "yes or no",
     [](ServerOptions& o, std::string_view v) {
       return (v == "yes" || v == "no") && (o.config.appendonly = v == "yes", true);
     }},
    {"appendfsync", "always, everysec or no",
     [](ServerOptions& o, std::string_view v) {
       bool ok = v == "always" || v == "everysec" || v == "no";
       return ok && (o.config.appendfsync.assign(v), true);
     }},
    {"dir", "an existing directory for the append-only file",
     [](ServerOptions& o, std::string_view v) { return !v.empty() && (o.config.dir.assign(v), true); }},
    {"auto-aof-rewrite-percentage", "an integer >= 0 (0 disables automatic rewrites)",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 0, 1000000, n) && (o.config.auto_aof_rewrite_percentage = static_cast<int>(n), true);
     }},
    {"auto-aof-rewrite-min-size", "a size, e.g. 64mb",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return detail::parse_memory(v, n) && (o.config.auto_aof_rewrite_min_size = n, true);
     }},
    {"maxmemory", "a memory value, e.g. 100mb (0: no limit)",
     [](ServerOptions& o, std::string_view v) { return detail::parse_memory(v, o.config.maxmemory); }},
    {"timeout", "seconds 0..2147483647 (0: idle clients are never closed)",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 0, INT32_MAX, n) && (o.config.timeout = static_cast<std::int64_t>(n), true);
     }},
    {"hz", "an integer 1..500 (active expiry cycles per second)",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 1, 500, n) && (o.config.hz = static_cast<int>(n), true);
     }},
    {"notify-keyspace-events", "event classes from 'Ag$lshzxeKEtmdn', e.g. KEA (\"\": off)",
     [](ServerOptions& o, std::string_view v) {
       const auto flags = parse_notify_flags(v);
       return flags && (o.config.notify_keyspace_events = *flags, true);
     }},
};

// TLS, as Redis spells it (redis.conf). --port 0 with --tls-port turns the
// plain port off, as in Redis; --port 0 alone still picks a free port (where
// Redis would refuse to start, listening nowhere).
const Flag tls_flags[] = {
    {"tls-port", "an integer 0..65535 (0: no TLS port)",
     [](ServerOptions& o, std::string_view v) {
       std::uint64_t n = 0;
       return parse_uint(v, 0, 65535, n) && (o.tls.port = static_cast<int>(n), true);
     }},
    {"tls-cert-file", "a PEM certificate chain file",
     [](ServerOptions& o, std::string_view v) { return !v.empty() && (o.tls.cert_file.assign(v), true); }},
    {"tls-key-file", "a PEM private key file",
     [](ServerOptions& o, std::string_view v) { return !v.empty() && (o.tls.key_file.assign(v), true); }},
    {"tls-ca-cert-file", "a PEM file of trusted CA certificates",
     [](ServerOptions& o, std::string_view v) { return !v.empty() && (o.tls.ca_cert_file.assign(v), true); }},
    {"tls-ca-cert-dir", "a directory of trusted CA certificates",
     [](ServerOptions& o, std::string_view v) { return !v.empty() && (o.tls.ca_cert_dir.assign(v), true); }},
    {"tls-auth-clients", "yes, no or optional",
     [](ServerOptions& o, std::string_view v) {
       return (v == "yes" || v == "no" || v == "optional") && (o.tls.auth_clients.assign(v), true);
     }},
};

// What one flag cannot check alone; empty when the TLS settings are usable.
std::string check_tls(const TlsServerOptions& tls) {
  if (tls.port == 0) return {};
  if (tls.cert_file.empty() || tls.key_file.empty()) return "--tls-port needs --tls-cert-file and --tls-key-file";
  if (tls.auth_clients != "no" && tls.ca_cert_file.empty() && tls.ca_cert_dir.empty()) {
    return "--tls-auth-clients " + tls.auth_clients + " needs --tls-ca-cert-file or --tls-ca-cert-dir";
  }
  return {};
}

}  // namespace

std::optional<ServerOptions> parse_server_options(int argc, const char* const* argv, std::string& error) {
  ServerOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      continue;
    }
    if (arg.substr(0, 2) != "--") return error = "unexpected argument '" + std::string(arg) + "' (see --help)", std::nullopt;
    arg.remove_prefix(2);
    std::optional<std::string_view> value;
    if (auto eq = arg.find('='); eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const Flag* flag = nullptr;
    for (const Flag& f : flags) flag = f.name == arg ? &f : flag;
    for (const Flag& f : tls_flags) flag = f.name == arg ? &f : flag;
    if (flag == nullptr) return error = "unknown option --" + std::string(arg) + " (see --help)", std::nullopt;
    if (!value && i + 1 >= argc) return error = "option --" + std::string(arg) + " needs a value", std::nullopt;
    if (!value) value = argv[++i];
    if (!flag->set(options, *value)) {
      error = "invalid value '" + std::string(*value) + "' for --" + std::string(arg) + ": expected " +
              std::string(flag->allowed);
      return std::nullopt;
    }
  }
  options.config.backend = std::string(backend_name(options.backend));
  if (error = check_tls(options.tls); !error.empty()) return std::nullopt;
  return options;
}

std::string usage(std::string_view program) {
  std::string text = "Usage: " + std::string(program) + " [options]\n\n";
  text +=
      "A Redis-protocol key-value server (RESP2; redis-cli, redis-benchmark and\n"
      "hiredis work unchanged).\n\n"
      "Options:\n"
      "  --port N                 TCP port (default 6380; 0 picks a free one)\n"
      "  --bind ADDR              address to listen on (default 127.0.0.1)\n"
      "  --unixsocket PATH        also listen on this Unix socket (a stale socket file\n"
      "                           there is replaced; @name: Linux abstract name)\n"
      "  --unixsocketperm OCTAL   mode of the socket file, e.g. 700 (default: umask)\n"
      "  --backend io_uring|epoll I/O backend (default io_uring; falls back to epoll\n"
      "                           with a log line when io_uring is unavailable)\n"
      "  --threads N              shards, a thread and a loop each, the keyspace split\n"
      "                           by key over them (default 1, at most 64); the TLS\n"
      "                           port and the Unix socket are served by shard 0\n"
      "  --accept reuseport|single  with --threads > 1: a listener per shard on the\n"
      "                           port, spread by the kernel (default), or one\n"
      "                           acceptor handing connections out in turn\n"
      "  --maxclients N           connected clients allowed (default 10000)\n"
      "  --requirepass PASS       require AUTH PASS before other commands\n"
      "  --proto-max-bulk-len N   largest bulk string accepted (default 512mb)\n"
      "  --loglevel LEVEL         debug, verbose, notice (default) or warning\n"
      "  --hz N                   server cron runs per second: active expiry, idle\n"
      "                           clients (default 10)\n"
      "  --maxmemory BYTES        past it, writes that may grow memory get OOM\n"
      "                           (policy noeviction; default 0: no limit)\n"
      "  --timeout SECONDS        close clients idle longer than this (default 0: never)\n"
      "  --notify-keyspace-events CLASSES  keyspace events published, e.g. KEA\n"
      "                           (Redis's classes; default \"\": off)\n"
      "  --appendonly yes|no      log every write to <dir>/appendonly.aof and replay\n"
      "                           it at start (default no)\n"
      "  --appendfsync POLICY     always (reply after fsync), everysec (default) or no\n"
      "  --dir DIR                where the append-only file lives (default .)\n"
      "  --auto-aof-rewrite-percentage N  rewrite when the AOF grew N% (default 100)\n"
      "  --auto-aof-rewrite-min-size N    ...and is at least N bytes (default 64mb)\n"
      "  --tls-port N             also serve TLS on port N (default 0: off); with\n"
      "                           --port 0 the plain port is off, as in Redis\n"
      "  --tls-cert-file F        the server's PEM certificate chain\n"
      "  --tls-key-file F         its private key\n"
      "  --tls-ca-cert-file F     CAs trusted for client certificates\n"
      "  --tls-ca-cert-dir D      ...or a directory of them\n"
      "  --tls-auth-clients yes|no|optional  client certificates required (default),\n"
      "                           neither asked for nor accepted, or checked if sent\n"
      "  --help                   this text\n\n"
      "Stop it with Ctrl-C, SIGTERM or the SHUTDOWN command.\n";
  return text;
}

}  // namespace duet::kv
