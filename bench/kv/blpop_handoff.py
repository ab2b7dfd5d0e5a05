#!/usr/bin/env python3
"""BLPOP hand-off cost (issue 27): the server's CPU per element that one
client RPUSHes and a blocked client's BLPOP receives.

N clients block on one list with BLPOP; a pusher sends RPUSH in bursts; every
served client at once blocks again. The pusher keeps a bounded number of
elements in flight, so the list stays empty and every element is a hand-off
to a blocked client (served in turn: the FIFO queue rotates through all N).
Server CPU comes from /proc (user + system, and each apart), divided by the
hand-offs.
Configurations alternate (A B C, A B C ...), server pinned to CPU 0 and this
client to CPU 1; medians of the repetitions.

Usage: bench/kv/blpop_handoff.py [--build build-release] [--clients 1000]
       [--seconds 3] [--reps 3] [--only stackless/io_uring,stackful/epoll,redis]
"""
import argparse
import os
import selectors
import socket
import statistics
import subprocess
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def configurations(build, port):
    kv = f"{build}/src/kv"
    flags = ["--port", str(port), "--maxclients", "12000", "--loglevel", "warning"]
    return {
        "stackless/io_uring": ["taskset", "-c", "0", f"{kv}/duet-kv-stackless", "--backend", "io_uring", *flags],
        "stackful/epoll": ["taskset", "-c", "0", f"{kv}/duet-kv-stackful", "--backend", "epoll", *flags],
        "redis": ["taskset", "-c", "0", "redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                  "--maxclients", "12000", "--loglevel", "warning"],
    }


def cpu_seconds(pid):
    """(user, system) CPU seconds of the process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def connect(port):
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"no server on port {port}")


BLPOP = b"*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n"
RPUSH = b"*3\r\n$5\r\nRPUSH\r\n$1\r\nq\r\n$1\r\nv\r\n"
SERVED = b"*2\r\n$1\r\nq\r\n$1\r\nv\r\n"  # each blocked client's answer


def run_once(port, server_pid, clients, seconds):
    sel = selectors.DefaultSelector()
    waiters = [connect(port) for _ in range(clients)]
    for w in waiters:
        w.setblocking(False)
        w.send(BLPOP)
        sel.register(w, selectors.EVENT_READ, bytearray())
    pusher = connect(port)
    time.sleep(0.3)  # every BLPOP has blocked
    burst, in_flight, handoffs = 32, 0, 0
    pusher_buf = b""
    cpu0, t0 = cpu_seconds(server_pid), time.time()
    end = t0 + seconds
    while time.time() < end:
        if in_flight < clients // 2:  # never more elements than blocked clients: every push is a hand-off
            pusher.sendall(RPUSH * burst)
            in_flight += burst
        for key, _ in sel.select(timeout=0.05):
            buf = key.data
            buf += key.fileobj.recv(4096)
            while buf.startswith(SERVED):
                del buf[:len(SERVED)]
                handoffs += 1
                in_flight -= 1
                key.fileobj.send(BLPOP)
        pusher.setblocking(False)
        try:
            pusher_buf += pusher.recv(65536)  # the RPUSH replies, discarded
        except BlockingIOError:
            pass
        pusher.setblocking(True)
    user1, sys1 = cpu_seconds(server_pid)
    cpu = (user1 - cpu0[0], sys1 - cpu0[1])
    for w in waiters:
        w.close()
    pusher.close()
    return handoffs, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-release")
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--port", type=int, default=6489)
    ap.add_argument("--only", default="")
    opts = ap.parse_args()
    os.sched_setaffinity(0, {1})
    configs = configurations(opts.build, opts.port)
    names = [n for n in configs if not opts.only or n in opts.only.split(",")]
    samples = {n: [] for n in names}
    for rep in range(opts.reps):
        for name in names:
            proc = subprocess.Popen(configs[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                connect(opts.port).close()
                handoffs, cpu = run_once(opts.port, proc.pid, opts.clients, opts.seconds)
                per = 1e6 / max(handoffs, 1)
                samples[name].append((sum(cpu) * per, handoffs / opts.seconds, cpu[0] * per, cpu[1] * per))
            finally:
                proc.terminate()
                proc.wait()
    def median(name, i):
        return statistics.median(s[i] for s in samples[name])

    # The kernel's TCP send and loopback delivery are most of every server's
    # CPU here; the user-space column is the part a server's own code decides.
    redis = (median("redis", 0), median("redis", 2)) if "redis" in samples else None
    print(f"{'server':20} {'CPU us/hand-off':>16} {'x redis':>8} {'user us':>8} {'x redis':>8} {'system us':>10}"
          f" {'hand-offs/s':>12}")
    for name in names:
        us, rate, user, system = (median(name, i) for i in range(4))
        ratio = f"{us / redis[0]:.2f}" if redis else "-"
        user_ratio = f"{user / redis[1]:.2f}" if redis else "-"
        print(f"{name:20} {us:16.2f} {ratio:>8} {user:8.2f} {user_ratio:>8} {system:10.2f} {rate:12.0f}")


if __name__ == "__main__":
    main()
