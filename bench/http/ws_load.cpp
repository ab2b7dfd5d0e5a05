// ws_load — the WebSocket benchmark's load generator: N connections, each
// keeping `depth` masked text messages of `size` bytes in flight against an
// echo server, counting the echoes that come back in a timed window.
//
//   ws_load --port 8081 [--host 127.0.0.1] [--conns 100] [--size 64]
//           [--duration 5] [--depth 1] [--warmup 1] [--server-pid PID]
//   -> "messages_per_s=123456.7 messages=617283 seconds=5.000 conns=100 size=64 depth=1
//       client_cpu_s=2.1 server_cpu_s=4.9 all_messages=741000"
//
// The CPU times cover the timed window only: the client's own (getrusage) and,
// with --server-pid, the server's utime+stime from /proc/PID/stat (all its
// threads), so server CPU per message leaves out the handshakes and warm-up.
// all_messages counts the warm-up's echoes too (for a server's whole life
// under callgrind).
//
// Why plain sockets and epoll, not duet: the client must be as lean as a
// client can be, and must not share code (or bugs) with the thing it
// measures. One thread, level-triggered epoll, one recv and one send per
// readable connection per turn, no allocation after the handshakes. Even so
// it spends about as much CPU per echo as duet's servers (on loopback most of
// an echo's CPU is the kernel's TCP path, on both sides), which is why the
// benchmark reports the server's CPU per message beside messages/s. Only the opening
// handshake reuses duet (ws_make_client_key, parse_upgrade_response,
// ws_check_upgrade_response), so it is checked as strictly as duet's own client.
//
// Every echo is checked: FIN + text, unmasked, `size` bytes, and the payload
// of the message sent (each one carries its sequence number). A failed connect
// or handshake, a closed connection, a wrong echo or a connection that saw no
// echo in the window ends the run with a message and exit status 1; bad flags
// print the usage and exit 2. The run ends by itself after warmup + duration.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <duet/http/detail/upgrade_response.hpp>
#include <duet/http/websocket_handshake.hpp>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  int conns = 100;
  int size = 64;
  double duration = 5;
  int depth = 1;
  double warmup = 1;
  int server_pid = 0;  // optional: also report this process's CPU time over the window
};

[[noreturn]] void usage(std::string_view problem) {
  std::fprintf(stderr,
               "ws_load: %.*s\nusage: ws_load --port N [--host 127.0.0.1] [--conns 100] [--size 64] "
               "[--duration 5] [--depth 1] [--warmup 1] [--server-pid PID]\n",
               static_cast<int>(problem.size()), problem.data());
  std::exit(2);
}

[[noreturn]] void fail(int conn, const std::string& what) {
  if (conn >= 0) std::fprintf(stderr, "ws_load: connection %d: %s\n", conn, what.c_str());
  else std::fprintf(stderr, "ws_load: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T number(std::string_view flag, std::string_view text, T low, T high) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
    usage("bad value for " + std::string(flag) + ": " + std::string(text));
  return value;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) usage("missing value after " + std::string(flag));
    const std::string_view value = argv[i + 1];
    if (flag == "--host") o.host = value;
    else if (flag == "--port") o.port = number(flag, value, 1, 65535);
    else if (flag == "--conns") o.conns = number(flag, value, 1, 16000);
    else if (flag == "--size") o.size = number(flag, value, 1, 65535);
    else if (flag == "--duration") o.duration = number(flag, value, 0.1, 3600.0);
    else if (flag == "--depth") o.depth = number(flag, value, 1, 1024);
    else if (flag == "--warmup") o.warmup = number(flag, value, 0.0, 60.0);
    else if (flag == "--server-pid") o.server_pid = number(flag, value, 1, 1 << 30);
    else usage("unknown flag " + std::string(flag));
  }
  if (o.port == 0) usage("--port is required");
  in_addr probe{};
  if (inet_pton(AF_INET, o.host.c_str(), &probe) != 1) usage("--host must be an IPv4 address: " + o.host);
  return o;
}

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

std::string hex_byte(unsigned char b) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", b);
  return text;
}

// The payload of message `seq`: its sequence number in hex, then letters, so
// that an echo of another message (or of stale bytes) is caught. ASCII: valid UTF-8.
void fill_payload(char* out, int size, std::uint64_t seq) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < size; ++i) out[i] = static_cast<char>('a' + (seq + static_cast<std::uint64_t>(i)) % 26);
  for (int i = 0; i < 16 && i < size; ++i) out[i] = hex[(seq >> (60 - 4 * i)) & 0xf];
}

double self_cpu_seconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// utime + stime of a whole process (fields 14 and 15 of /proc/PID/stat, after the parenthesised name).
double process_cpu_seconds(int pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) fail(-1, "cannot read " + path + " (--server-pid)");
  char text[1024];
  const std::size_t n = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  text[n] = 0;
  const char* p = std::strrchr(text, ')');
  unsigned long long utime = 0, stime = 0;
  if (p == nullptr || std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
    fail(-1, "cannot parse " + path);
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

struct Conn {
  int id = 0;
  int fd = -1;
  std::uint64_t sent = 0;      // messages sent (their sequence numbers: 0, 1, ...)
  std::uint64_t received = 0;  // echoes checked
  std::vector<char> in;        // received, not yet a whole frame
  std::size_t in_len = 0;
  std::vector<char> out;       // frames not yet accepted by the kernel
  std::size_t out_len = 0, out_off = 0;
  bool want_out = false;       // EPOLLOUT armed
  std::uint32_t rng = 0;       // xorshift32 for the masks
};

std::size_t header_size(int size) { return size < 126 ? 2 : 4; }

// One masked text frame (RFC 6455 §5.2: a client masks every frame) appended to out.
void queue_message(Conn& c, int size) {
  const std::size_t frame = header_size(size) + 4 + static_cast<std::size_t>(size);
  if (c.out_len + frame > c.out.size()) c.out.resize(c.out_len + frame);
  auto* p = reinterpret_cast<unsigned char*>(c.out.data() + c.out_len);
  *p++ = 0x81;  // FIN, text
  if (size < 126) {
    *p++ = static_cast<unsigned char>(0x80 | size);
  } else {
    *p++ = 0x80 | 126;
    *p++ = static_cast<unsigned char>(size >> 8);
    *p++ = static_cast<unsigned char>(size & 0xff);
  }
  c.rng ^= c.rng << 13, c.rng ^= c.rng >> 17, c.rng ^= c.rng << 5;
  unsigned char mask[4];
  std::memcpy(mask, &c.rng, 4);
  std::memcpy(p, mask, 4);
  p += 4;
  fill_payload(reinterpret_cast<char*>(p), size, c.sent++);
  for (int i = 0; i < size; ++i) p[i] ^= mask[i & 3];
  c.out_len += frame;
}

int connect_to(const Options& o, int id) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail(id, errno_text("socket") + (errno == EMFILE ? " (raise ulimit -n)" : ""));
  timeval timeout{5, 0};  // the handshake is blocking but bounded
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(o.port));
  inet_pton(AF_INET, o.host.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail(id, errno_text("connect"));
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// The opening handshake (RFC 6455 §4.1), blocking; bytes after the 101's head stay in c.in.
void handshake(const Options& o, Conn& c) {
  const auto key = duet::ws_make_client_key();
  const std::string request = "GET / HTTP/1.1\r\nHost: " + o.host + ":" + std::to_string(o.port) +
                              "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " +
                              std::string(key.view()) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
  if (::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
    fail(c.id, errno_text("send (handshake)"));
  std::vector<duet::http::HeaderField> fields;
  duet::http::UpgradeResponse head;
  for (;;) {
    const ssize_t n = ::recv(c.fd, c.in.data() + c.in_len, c.in.size() - c.in_len, 0);
    if (n < 0) fail(c.id, errno_text("recv (handshake)"));
    if (n == 0) fail(c.id, "the server closed the connection during the handshake");
    c.in_len += static_cast<std::size_t>(n);
    const auto r = duet::http::parse_upgrade_response({c.in.data(), c.in_len}, c.in.size(), fields, head);
    if (r.status == duet::http::UpgradeResponseParse::Status::need_more) continue;
    if (r.status == duet::http::UpgradeResponseParse::Status::error) fail(c.id, "bad upgrade response: " + std::string(r.error));
    const auto check = duet::ws_check_upgrade_response(
        {.status = head.status, .upgrade = head.find("Upgrade"), .connection = head.find("Connection"),
         .accept = head.find("Sec-WebSocket-Accept"), .protocol = head.find("Sec-WebSocket-Protocol"),
         .extensions = head.find("Sec-WebSocket-Extensions")},
        key.view());
    if (!check.ok) fail(c.id, "upgrade refused (status " + std::to_string(head.status) + "): " + std::string(check.error));
    std::memmove(c.in.data(), c.in.data() + r.consumed, c.in_len - r.consumed);
    c.in_len -= r.consumed;
    return;
  }
}

void arm(int epfd, Conn& c, bool want_out) {
  if (want_out == c.want_out) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (want_out ? EPOLLOUT : 0u);
  ev.data.ptr = &c;
  if (::epoll_ctl(epfd, EPOLL_CTL_MOD, c.fd, &ev) != 0) fail(c.id, errno_text("epoll_ctl"));
  c.want_out = want_out;
}

// Sends what is queued; what the kernel does not take waits for EPOLLOUT.
void flush(int epfd, Conn& c) {
  while (c.out_off < c.out_len) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out_len - c.out_off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) fail(c.id, errno_text("send"));
    c.out_off += static_cast<std::size_t>(n);
  }
  if (c.out_off == c.out_len) c.out_off = c.out_len = 0;
  arm(epfd, c, c.out_len != 0);
}

// Checks every whole echo in c.in and queues one new message per echo.
// Returns the number of echoes.
std::uint64_t take_echoes(Conn& c, int size, std::vector<char>& expected) {
  std::uint64_t echoes = 0;
  std::size_t at = 0;
  while (c.in_len - at >= 2) {
    const auto* p = reinterpret_cast<const unsigned char*>(c.in.data() + at);
    if (p[0] != 0x81) fail(c.id, "expected a final text frame, got first byte " + hex_byte(p[0]));
    if (p[1] & 0x80) fail(c.id, "the server masked its frame");
    const unsigned len7 = p[1] & 0x7f;
    if (len7 == 127) fail(c.id, "echo with a 64-bit length");
    const std::size_t hdr = len7 == 126 ? 4 : 2;
    if (c.in_len - at < hdr) break;
    const std::size_t len = len7 == 126 ? (std::size_t{p[2]} << 8 | p[3]) : len7;
    if (len != static_cast<std::size_t>(size))
      fail(c.id, "echo of the wrong length (" + std::to_string(len) + " bytes, sent " + std::to_string(size) + ")");
    if (c.in_len - at < hdr + len) break;
    fill_payload(expected.data(), size, c.received);
    if (std::memcmp(c.in.data() + at + hdr, expected.data(), static_cast<std::size_t>(size)) != 0)
      fail(c.id, "echo " + std::to_string(c.received) + " differs from the message sent");
    ++c.received, ++echoes, at += hdr + len;
    queue_message(c, size);
  }
  if (at != 0) std::memmove(c.in.data(), c.in.data() + at, c.in_len - at), c.in_len -= at;
  return echoes;
}

std::uint64_t on_readable(int epfd, Conn& c, int size, std::vector<char>& expected) {
  const ssize_t n = ::recv(c.fd, c.in.data() + c.in_len, c.in.size() - c.in_len, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  if (n < 0) fail(c.id, errno_text("recv"));
  if (n == 0) fail(c.id, "the server closed the connection");
  c.in_len += static_cast<std::size_t>(n);
  const std::uint64_t echoes = take_echoes(c, size, expected);
  if (c.out_len != 0 && !c.want_out) flush(epfd, c);
  return echoes;
}

std::vector<Conn> open_all(const Options& o, int epfd) {
  std::vector<Conn> conns(static_cast<std::size_t>(o.conns));
  const std::size_t frame = header_size(o.size) + static_cast<std::size_t>(o.size);
  for (int i = 0; i < o.conns; ++i) {
    Conn& c = conns[static_cast<std::size_t>(i)];
    c.id = i;
    c.rng = 0x9e3779b9u * static_cast<std::uint32_t>(i + 1) | 1u;
    c.in.resize(std::max<std::size_t>(16 * 1024, 2 * frame * static_cast<std::size_t>(o.depth)));
    c.out.resize((frame + 4) * static_cast<std::size_t>(o.depth));
    c.fd = connect_to(o, i);
    handshake(o, c);
    if (::fcntl(c.fd, F_SETFL, ::fcntl(c.fd, F_GETFL) | O_NONBLOCK) != 0) fail(i, errno_text("fcntl"));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &c;
    if (::epoll_ctl(epfd, EPOLL_CTL_ADD, c.fd, &ev) != 0) fail(i, errno_text("epoll_ctl"));
  }
  return conns;
}

struct Window {
  std::uint64_t echoes = 0;
  double seconds = 0;
  double client_cpu = 0, server_cpu = 0;  // seconds over the window
  std::uint64_t all_echoes = 0;            // warm-up's included: for instruction counts over a server's life
};

struct CpuMark {
  double client = 0, server = 0;
};

CpuMark cpu_mark(const Options& o) { return {self_cpu_seconds(), o.server_pid != 0 ? process_cpu_seconds(o.server_pid) : 0}; }

// One epoll_wait (10 ms at most, so the clock is looked at) and what it reports; returns the echoes.
std::uint64_t one_turn(int epfd, std::vector<epoll_event>& events, int size, std::vector<char>& expected) {
  const int n = ::epoll_wait(epfd, events.data(), static_cast<int>(events.size()), 10);
  if (n < 0 && errno != EINTR) fail(-1, errno_text("epoll_wait"));
  std::uint64_t echoes = 0;
  for (int i = 0; i < n; ++i) {
    const epoll_event& ev = events[static_cast<std::size_t>(i)];
    Conn& c = *static_cast<Conn*>(ev.data.ptr);
    if (ev.events & EPOLLOUT) flush(epfd, c);
    if (ev.events & (EPOLLIN | EPOLLERR | EPOLLHUP)) echoes += on_readable(epfd, c, size, expected);
  }
  return echoes;
}

// Runs the connections: warm-up, then the timed window; returns the window's echoes.
Window run(const Options& o, int epfd, std::vector<Conn>& conns) {
  for (Conn& c : conns) {
    for (int d = 0; d < o.depth; ++d) queue_message(c, o.size);
    flush(epfd, c);
  }
  std::vector<char> expected(static_cast<std::size_t>(o.size));
  std::vector<epoll_event> events(256);
  const auto start = Clock::now();
  const auto measure_from = start + std::chrono::duration<double>(o.warmup);
  const auto measure_to = measure_from + std::chrono::duration<double>(o.duration);
  std::uint64_t total = 0, at_window_start = 0;
  bool measuring = false;
  std::vector<std::uint64_t> received_at_start(conns.size());
  CpuMark cpu_start;
  Clock::time_point window_start;
  for (;;) {
    total += one_turn(epfd, events, o.size, expected);
    const auto now = Clock::now();
    if (!measuring && now >= measure_from) {
      measuring = true, at_window_start = total, cpu_start = cpu_mark(o), window_start = now;
      for (std::size_t k = 0; k < conns.size(); ++k) received_at_start[k] = conns[k].received;
    }
    if (measuring && now >= measure_to) {
      for (std::size_t k = 0; k < conns.size(); ++k)
        if (conns[k].received == received_at_start[k]) fail(static_cast<int>(k), "no echo during the timed window");
      const CpuMark cpu_end = cpu_mark(o);
      return {total - at_window_start, std::chrono::duration<double>(now - window_start).count(),
              cpu_end.client - cpu_start.client, cpu_end.server - cpu_start.server, total};
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  const int epfd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) fail(-1, errno_text("epoll_create1"));
  std::vector<Conn> conns = open_all(o, epfd);
  const Window w = run(o, epfd, conns);
  for (Conn& c : conns) ::close(c.fd);
  ::close(epfd);
  std::printf("messages_per_s=%.1f messages=%llu seconds=%.3f conns=%d size=%d depth=%d client_cpu_s=%.3f",
              static_cast<double>(w.echoes) / w.seconds, static_cast<unsigned long long>(w.echoes), w.seconds,
              o.conns, o.size, o.depth, w.client_cpu);
  if (o.server_pid != 0) std::printf(" server_cpu_s=%.3f", w.server_cpu);
  std::printf(" all_messages=%llu\n", static_cast<unsigned long long>(w.all_echoes));
  return 0;
}
