#!/usr/bin/python3
"""idle_client.py — memory per idle keep-alive HTTP connection, the client half
of bench/http/idle_memory.sh.

    idle_client.py --port P --pid SERVER_PID [--conns 4000] [--settle 2]

Reads the server's memory (VmRSS from /proc/PID/status, Pss from
/proc/PID/smaps_rollup), then opens the connections in two halves: each
connection sends one keep-alive `GET /` and reads the whole response
(Content-Length body), then stays open and idle. After each half, once the
server has settled, the memory is read again. Prints one line:

    rss0=KiB pss0=KiB rss_half=KiB pss_half=KiB rss=KiB pss=KiB conns=N open=N

`open` counts the connections the server still holds at the end (none may
read as closed), so a server that dropped idle connections is caught. The
per-connection figures are the shell script's: (rss - rss0) / conns, and the
slope (rss - rss_half) / (conns - conns/2), which leaves out one-time costs.
Fails (exit 1, a message on stderr) on a refused connect, the fd limit, a
response that is not 200 or that does not arrive within 5 s.
"""
import argparse
import os
import resource
import select
import socket
import sys
import time


def fail(message):
    sys.stderr.write(f"idle_client: {message}\n")
    sys.exit(1)


def memory(pid):
    rss = pss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def read_response(sock, index):
    """Reads one response: the head, then Content-Length bytes of body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            fail(f"connection {index}: closed before the response")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not lines[0].startswith(b"HTTP/1.1 200"):
        fail(f"connection {index}: {lines[0].decode(errors='replace')}")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            fail(f"connection {index}: closed in the body")
        body += chunk


def open_connections(port, first, count, sockets):
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    for i in range(first, first + count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(request)
            read_response(sock, i)
        except socket.timeout:
            fail(f"connection {i}: no response within 5 s (the server at its fd limit?)")
        except OSError as e:
            fail(f"connection {i}: {e}")
        sockets.append(sock)


def still_open(sockets):
    """Connections that read as neither readable (EOF, data) nor in error."""
    poller = select.poll()
    for sock in sockets:
        poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
    return len(sockets) - len(poller.poll(0))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--conns", type=int, default=4000)
    parser.add_argument("--settle", type=float, default=2.0)
    args = parser.parse_args()
    if args.conns < 2:
        parser.error("--conns must be at least 2")
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if args.conns + 64 > limit:
        fail(f"--conns {args.conns} needs {args.conns + 64} file descriptors; the limit is {limit}")
    time.sleep(args.settle)
    rss0, pss0 = memory(args.pid)
    sockets = []
    half = args.conns // 2
    open_connections(args.port, 0, half, sockets)
    time.sleep(args.settle)
    rss_half, pss_half = memory(args.pid)
    open_connections(args.port, half, args.conns - half, sockets)
    time.sleep(args.settle)
    rss, pss = memory(args.pid)
    print(f"rss0={rss0} pss0={pss0} rss_half={rss_half} pss_half={pss_half} rss={rss} pss={pss} "
          f"conns={args.conns} open={still_open(sockets)}")
    for sock in sockets:
        sock.close()


if __name__ == "__main__":
    main()
