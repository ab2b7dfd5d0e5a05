#!/usr/bin/env python3
# accept_churn — server CPU per accepted connection, two echo builds side by side.
#
#   bench/echo/accept_churn.py BEFORE_ECHO AFTER_ECHO [N]
#
# Each run starts an echo server (examples/echo_stackless: --port 0, --backend)
# pinned to core 0, then makes N sequential connections from core 1, each
# sending one byte, reading it back and closing; the server's CPU time (user +
# system, /proc/PID/stat) over those N is divided by N. Runs alternate
# before/after, 3 each per backend; medians are printed. Loopback only; the
# servers are ended (SIGTERM) by this script.
import os, socket, subprocess, sys, time
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
def run(binary, backend, n):
    p = subprocess.Popen(["taskset", "-c", "0", binary, "--port", "0", "--backend", backend], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    port = int(p.stdout.readline().split()[3])
    time.sleep(0.2)
    c0 = cpu(p.pid); t0 = time.time()
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"x"); s.recv(1); s.close()
    dt = time.time() - t0; c = cpu(p.pid) - c0
    p.terminate(); p.wait()
    return c / n * 1e6, n / dt
os.sched_setaffinity(0, {1})
before, after = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
for backend in ["io_uring", "epoll"]:
    rows = {"before": [], "after": []}
    for i in range(3):
        for name, b in (("before", before), ("after", after)):
            rows[name].append(run(b, backend, n))
    for name, r in rows.items():
        us = sorted(x[0] for x in r)[1]; rate = sorted(x[1] for x in r)[1]
        print(f"{backend:9} {name:7} server CPU {us:6.1f} us/conn   {rate:7.0f} conn/s (median of 3)")
