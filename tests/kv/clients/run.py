#!/usr/bin/env python3
"""The clients users run, against duet-kv: node-redis 6 and ioredis 6 (npm, in
RESP2 and RESP3) and Debian's python3-redis (RESP2), each through its own API
for strings, hashes, lists, sets, pub/sub, MULTI/EXEC and WATCH, pipelines
and BLPOP (node_clients.mjs, py_client.py).

Each script runs first against Debian's redis-server (so a failure there is the
script's, not duet's), then against duet-kv-stackless, duet-kv-stackful on epoll
and duet-kv-stackless --threads 2. Servers come from DUET_KV_STACKLESS and
DUET_KV_STACKFUL (meson test sets them); ./dev.sh deps installs the clients
(npm ci here, python3-redis from Debian).
"""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "differential"))
from run import free_port, start  # noqa: E402  (the differential test's server start-up)


def main():
    if not (HERE / "node_modules" / "ioredis").is_dir() or not (HERE / "node_modules" / "redis").is_dir():
        raise SystemExit("node-redis/ioredis missing: ./dev.sh deps installs them (npm ci in tests/kv/clients)")
    redis = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    targets = [("redis-server", [redis, "--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "--port"]),
               ("duet-kv-stackless", [os.environ["DUET_KV_STACKLESS"], "--port"]),
               ("duet-kv-stackful/epoll", [os.environ["DUET_KV_STACKFUL"], "--backend", "epoll", "--port"]),
               ("duet-kv-stackless/threads=2", [os.environ["DUET_KV_STACKLESS"], "--threads", "2", "--port"])]
    clients = [["node", str(HERE / "node_clients.mjs")], ["/usr/bin/python3", str(HERE / "py_client.py")]]
    passed = failed = 0
    for name, argv in targets:
        port = free_port()
        server = start(argv + [str(port)], port)
        try:
            for client in clients:
                run = subprocess.run(client + [str(port)], capture_output=True, text=True, timeout=120, cwd=HERE)
                for line in run.stdout.splitlines():
                    if line.startswith("FAIL"):
                        print("%s: %s" % (name, line))
                counts = re.search(r"^(\d+) passed, (\d+) failed$", run.stdout, re.M)
                if counts is None or run.returncode not in (0, 1):
                    print("%s: %s did not finish:\n%s%s" % (name, client[-1], run.stdout[-2000:], run.stderr[-2000:]))
                    failed += 1
                    continue
                passed += int(counts.group(1))
                failed += int(counts.group(2))
        finally:
            server.kill()
            server.wait()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    # meson's timeout sends SIGTERM: unwind through the finally that stops the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
