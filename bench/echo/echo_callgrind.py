#!/usr/bin/env python3
# echo_callgrind — user-space instructions per echo round trip in an echo server
# (examples/echo_*: --port 0 --backend), counted by callgrind, so the machine's
# load does not change them: (Ir after 1,200 round trips per connection - Ir
# after 200) / 10,000, over 10 connections of 64-byte messages, one at a time.
# Use --backend epoll: valgrind 3.19 does not run io_uring's waits.
#
#   bench/echo/echo_callgrind.py build-release/bench/echo/duet_echo_server epoll
import os, signal, socket, subprocess, sys, time, glob
def ir(binary, backend, per_conn):
    out = f"/tmp/cg.out.{os.getpid()}.{per_conn}"
    p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "--port", "0",
                          "--backend", backend], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    port = int(p.stdout.readline().split()[3])
    conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
    msg = b"x" * 64
    for _ in range(per_conn):
        for c in conns:
            c.sendall(msg)
            got = 0
            while got < 64: got += len(c.recv(64 - got))
    for c in conns: c.close()
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM); p.wait()
    total = None
    for line in open(out):
        if line.startswith(("summary:", "totals:")): total = int(line.split()[1])
    os.unlink(out)
    return total
binary, backend = sys.argv[1], sys.argv[2]
a = ir(binary, backend, 200); b = ir(binary, backend, 1200)
print(f"{binary} {backend}: {(b - a) / (1000 * 10):.0f} Ir per round trip")
