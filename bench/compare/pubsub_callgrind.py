#!/usr/bin/env python3
"""Server instructions per delivered pub/sub message, counted by callgrind.

The pubsub_fanout workload's CPU time moves with the load of a shared machine;
user-space instruction counts do not. Each server configuration of
side_by_side.py runs under `valgrind --tool=callgrind` twice, fed by
bench/echo/pubsub_load with a fixed number of messages (SHORT, then LONG), and
the difference of the whole process's Ir over the difference in delivered
messages is what one more delivered message costs in user space: start-up,
the 1,000 SUBSCRIBEs and shutdown cancel. The kernel's share (the TCP send
path, most of it at P1) is not counted: this complements the CPU-time figures,
it does not replace them.

    python3 bench/compare/pubsub_callgrind.py --build build-release --only redis,stackless/io_uring --pipeline 16
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import pubsub
import side_by_side

SHORT, LONG = 32, 288  # messages per run; × 1,000 subscribers, ~7 s under callgrind for Redis


def total_ir(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def delivered_under_callgrind(build, argv, port, pipeline, messages, out):
    """(Ir of the whole server process, messages delivered), or None when the server has no pub/sub."""
    server = side_by_side.Server(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv], port)
    try:
        cmd = [f"{build}/bench/echo/pubsub_load", "--port", str(port), "--subscribers", str(pubsub.SUBSCRIBERS),
               "--size", str(pubsub.SIZE), "--pipeline", str(pipeline), "--messages", str(messages),
               "--duration", "600", "--drain", "60"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if done.returncode == pubsub.UNSUPPORTED_EXIT:
            return None
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr}")
        # Dump now (to out.1), not at exit: a duet server under valgrind may not see
        # SIGTERM through its signalfd, and the SIGKILL that follows writes nothing.
        subprocess.run(["callgrind_control", "--dump", str(server.proc.pid)], capture_output=True, timeout=120,
                       check=True)
    finally:
        server.stop()
    return total_ir(f"{out}.1"), json.loads(done.stdout.strip().splitlines()[-1])["delivered"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build-release")
    ap.add_argument("--port", type=int, default=7392)
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--only", default="stackless/io_uring,stackless/epoll,stackful/io_uring,stackful/epoll,redis")
    opts = ap.parse_args()
    configs = side_by_side.configurations(opts.build, opts.port)
    with tempfile.TemporaryDirectory(prefix="duet-pubsub-cg-") as tmp:
        for name in opts.only.split(","):
            runs = [delivered_under_callgrind(opts.build, configs[name], opts.port, opts.pipeline, n,
                                              os.path.join(tmp, f"{n}.out")) for n in (SHORT, LONG)]
            if None in runs:
                print(f"{name}: unsupported (SUBSCRIBE answered with an error)")
                continue
            (ir0, d0), (ir1, d1) = runs
            print(f"{name}: P{opts.pipeline}, {(ir1 - ir0) / (d1 - d0):,.0f} Ir per delivered message "
                  f"({d1 - d0:,} messages)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
