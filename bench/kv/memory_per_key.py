#!/usr/bin/env python3
"""Memory per key and per element: duet-kv beside redis-server, one run.

Usage: bench/kv/memory_per_key.py [--build build] [--keys 1000000] [--elements 1000000]
                                  [--workloads strings,hash5,set5,list5,bighash,bigset,biglist]

For each workload each server starts empty (no persistence), is filled over
one pipelined connection, and reports: RSS growth (VmRSS from /proc after the
fill minus before, divided by keys or elements) and INFO used_memory growth
the same way. Servers: redis-server (Debian's), duet-kv-stackless and
duet-kv-stackful (--threads 1). Workloads (the targets of issue 25):
  strings  SET of 14-byte keys to 3-byte values
  hash5    HSET key f1 v1 ... f5 v5 (small fields)
  set5     SADD key of 5 small integers
  list5    RPUSH key of 5 short elements
  zset5    ZADD key of 5 short members with small integer scores (issue 28)
  bighash / bigset / biglist / bigzset  one key holding --elements elements (per element;
           bigzset's scores are decimals with 3 places, its members member:<n>)
Prints one table; ratios are duet / redis.
"""
import argparse
import os
import socket
import subprocess
import sys
import time

PORT = int(os.environ.get("KV_MEMORY_PORT", "6491"))


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def command(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=60)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_reply(self):
        line = self._line()
        kind = line[:1]
        if kind == b"-":
            raise RuntimeError(line.decode())
        if kind == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.sock.recv(1 << 20)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            return [self.read_reply() for _ in range(int(line[1:]))]
        return line[1:]

    def pipeline(self, commands):
        self.sock.sendall(b"".join(commands))
        for _ in commands:
            self.read_reply()

    def used_memory(self):
        self.sock.sendall(command("INFO", "memory"))
        text = self.read_reply().decode()
        for line in text.split("\r\n"):
            if line.startswith("used_memory:"):
                return int(line.split(":")[1])
        return 0


def fill(conn, workload, keys, elements):
    batch = []

    def flush():
        conn.pipeline(batch)
        batch.clear()

    def add(cmd):
        batch.append(cmd)
        if len(batch) >= 1000:
            flush()

    if workload == "strings":
        for i in range(keys):
            add(command("SET", "key:%010d" % i, "xyz"))  # 14-byte key, 3-byte value
    elif workload == "hash5":
        for i in range(keys):
            add(command("HSET", "h:%08d" % i, "f1", "v1", "f2", "v2", "f3", "v3", "f4", "v4", "f5", "v5"))
    elif workload == "set5":
        for i in range(keys):
            add(command("SADD", "s:%08d" % i, 1, 2, 3, 4, 5))
    elif workload == "list5":
        for i in range(keys):
            add(command("RPUSH", "l:%08d" % i, "aa", "bb", "cc", "dd", "ee"))
    elif workload == "zset5":
        for i in range(keys):
            add(command("ZADD", "z:%08d" % i, 1, "aa", 2, "bb", 3, "cc", 4, "dd", 5, "ee"))
    elif workload in ("bighash", "bigset", "biglist", "bigzset"):
        for start in range(0, elements, 100):
            members = range(start, min(start + 100, elements))
            if workload == "bighash":
                args = []
                for m in members:
                    args += ["field:%d" % m, "v%d" % m]
                add(command("HSET", "big", *args))
            elif workload == "bigset":
                add(command("SADD", "big", *["member:%d" % m for m in members]))
            elif workload == "bigzset":
                args = []
                for m in members:
                    args += ["%.3f" % ((m * 2654435761) % 1_000_000_007 / 1000), "member:%d" % m]
                add(command("ZADD", "big", *args))
            else:
                add(command("RPUSH", "big", *["element:%d" % m for m in members]))
    flush()


def measure(argv, workload, keys, elements):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                conn = Conn()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("server did not start: " + " ".join(argv))
        conn.pipeline([command("PING")])
        rss0, used0 = rss_bytes(proc.pid), conn.used_memory()
        fill(conn, workload, keys, elements)
        time.sleep(0.2)
        rss1, used1 = rss_bytes(proc.pid), conn.used_memory()
        n = elements if workload.startswith("big") else keys
        return (rss1 - rss0) / n, (used1 - used0) / n
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--elements", type=int, default=1_000_000)
    p.add_argument("--workloads", default="strings,hash5,set5,list5,zset5,bighash,bigset,biglist,bigzset")
    a = p.parse_args()
    servers = [
        ("redis", ["redis-server", "--port", str(PORT), "--save", "", "--appendonly", "no"]),
        ("stackless", [f"{a.build}/src/kv/duet-kv-stackless", "--port", str(PORT)]),
        ("stackful", [f"{a.build}/src/kv/duet-kv-stackful", "--port", str(PORT)]),
    ]
    print(f"{'workload':<10} {'server':<10} {'RSS B/unit':>11} {'used B/unit':>12} {'RSS vs redis':>13}")
    for workload in a.workloads.split(","):
        base = None
        for name, argv in servers:
            rss, used = measure(argv, workload, a.keys, a.elements)
            base = rss if name == "redis" else base
            ratio = f"{rss / base:.2f}" if base else "-"
            print(f"{workload:<10} {name:<10} {rss:>11.1f} {used:>12.1f} {ratio:>13}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
