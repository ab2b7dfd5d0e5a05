#!/usr/bin/env python3
"""The differential test: every script in this folder runs against Debian's
redis-server and against duet-kv (both voices, one and two shards), in RESP2
and in RESP3, and every reply must be the same bytes; after each script the
keyspace (every key's type, value and whether it has a TTL) must be the same.

Usage: run.py [--only MODULE] [--resp 2|3] [--groups N]
--groups N (default 3) splits the modules into N groups of about equal wait,
run at once, each on servers of its own (the steps mostly wait for quiet).
The servers come from the environment (meson test sets them):
  DUET_KV_STACKLESS, DUET_KV_STACKFUL  the executables; REDIS_SERVER (default: redis-server on PATH).

A script module (lists.py, hashes.py, ...) defines SCRIPTS: a list of scripts,
each a list of steps run in order on one connection after FLUSHALL. A step is
a command (a list of strings) or a pair (mode, command) where mode says how a
reply whose order is unspecified compares:
  "unordered"  the top-level elements of an aggregate as a multiset
  "pairs"      a map or flat key/value array as a multiset of pairs
  "length"     only the reply's type and element count (random picks)
  "skip"       not compared (the command still runs)
  "type"       only the reply's type byte (a clock reading such as OBJECT IDLETIME)
  "one_shard"  compared only on the one-shard servers (SCAN's cursor names a shard on several)
  "scan"       a SCAN-family reply: the cursor as it is, the elements as a multiset; one-shard servers only
  "known"      a documented difference: printed as KNOWN, not failed (say why beside it)
A module may also define RESP2_ONLY = True (its replies have no RESP3 form worth checking),
and MULTI_SCRIPTS with CONNECTIONS = n: scripts whose steps are (connection, command[, "sorted" | "pubsub"]);
after each step every connection's bytes (replies and pushes) are read until the server goes quiet and
compared ("sorted": as sorted lines, for hash-ordered replies; "pubsub", "blocked": only INFO's lines
starting so). A blocked connection's step reads nothing until a later step's push or timeout answers it.
A step sending a blocking command (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP) with a short timeout (0 < t <= 1 s)
first waits t, then up to 1 s more for that connection's reply, so (0, ["BLPOP", "x", "0.1"]) reads its own
timeout's null (Redis answers at its next cron tick, up to 100 ms late); it also serves as a pause.
"""
import concurrent.futures
import importlib.util
import io
import os
import select
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def encode(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode("latin1") if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class Reader:
    """Reads one RESP2/RESP3 reply as (raw bytes, parts): parts are the raw
    bytes of the top-level elements of an aggregate (for the unordered modes)."""

    AGGREGATES = {b"*": 1, b"~": 1, b">": 1, b"%": 2, b"|": 2}

    def __init__(self, source):
        self.f = source if isinstance(source, io.IOBase) else source.makefile("rb")

    def reply(self):
        line = self.f.readline()
        if not line:
            return b"<closed>", []
        kind = line[:1]
        if kind in (b"$", b"=", b"!"):
            n = int(line[1:])
            return (line if n < 0 else line + self.f.read(n + 2)), []
        if kind in self.AGGREGATES:
            n = int(line[1:])
            if n < 0:
                return line, []
            parts = [self.reply()[0] for _ in range(n * self.AGGREGATES[kind])]
            if kind == b"|":  # an attribute precedes the real reply
                raw, inner = self.reply()
                return line + b"".join(parts) + raw, inner
            return line + b"".join(parts), parts
        return line, []


def parts_of(raw):
    """The top-level elements of an aggregate reply given as bytes."""
    return Reader(io.BytesIO(raw)).reply()[1]


def normalise(mode, raw, parts):
    if mode == "scan":
        return ("one_shard", parts[0], sorted(parts_of(parts[1])) if len(parts) == 2 else raw)
    if mode == "unordered":
        return raw[:raw.index(b"\r\n")], sorted(parts)
    if mode == "pairs":
        if parts and all(p.startswith(b"*2\r\n") for p in parts):  # RESP3's array of pairs (HRANDFIELD)
            return raw[:raw.index(b"\r\n")], sorted(parts)
        return raw[:raw.index(b"\r\n")], sorted(zip(parts[0::2], parts[1::2]))
    if mode == "length":
        return raw[:raw.index(b"\r\n")], len(parts)
    if mode == "skip":
        return None
    if mode == "type":
        return raw[:1]
    if mode in ("one_shard", "known"):
        return (mode, raw)
    return raw


class Connection:
    def __init__(self, port, proto):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.reader = Reader(self.sock)
        if proto == 3:
            self.call(["HELLO", "3"])

    def call(self, args):
        self.sock.sendall(encode(args))
        return self.reader.reply()

    def close(self):
        self.sock.close()


def dump_keyspace(conn):
    """Every key of every database with its type, TTL-or-not and value, in a
    form that does not depend on hash order."""
    out = []
    for db in range(16):
        conn.call(["SELECT", str(db)])
        raw, keys = conn.call(["KEYS", "*"])
        for key in sorted(keys):
            name = key.split(b"\r\n")[1].decode("latin1")
            kind = conn.call(["TYPE", name])[0]
            ttl = conn.call(["PTTL", name])[0] != b":-1\r\n"
            value = {
                b"+string\r\n": lambda: conn.call(["GET", name])[0],
                b"+list\r\n": lambda: conn.call(["LRANGE", name, "0", "-1"])[0],
                b"+hash\r\n": lambda: sorted(normalise("pairs", *conn.call(["HGETALL", name]))[1]),
                b"+set\r\n": lambda: sorted(conn.call(["SMEMBERS", name])[1]),
                b"+zset\r\n": lambda: conn.call(["ZRANGE", name, "0", "-1", "WITHSCORES"])[0],
            }.get(kind, lambda: b"?")()
            out.append((db, key, kind, ttl, value))
    conn.call(["SELECT", "0"])
    return out


def run_script(port, proto, script):
    conn = Connection(port, proto)
    conn.call(["FLUSHALL"])
    replies = []
    for step in script:
        mode, cmd = step if isinstance(step, tuple) else (None, step)
        replies.append(normalise(mode, *conn.call(cmd)))
    replies.append(("keyspace", dump_keyspace(conn)))
    conn.close()
    return replies


def read_quiet(sock, quiet=0.05):
    sock.settimeout(quiet)
    out = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return out + b"<closed>"
            out += chunk
    except socket.timeout:
        return out


BLOCKING = {"BLPOP": -1, "BRPOP": -1, "BLMOVE": -1, "BRPOPLPUSH": -1, "BLMPOP": 1,  # command: its timeout's index
            "BZPOPMIN": -1, "BZPOPMAX": -1, "BZMPOP": 1}


def short_timeout(cmd):
    """A blocking command's timeout in seconds when it is short enough to wait for (0 < t <= 1), else None."""
    index = BLOCKING.get(cmd[0].upper())
    try:
        t = float(cmd[index]) if index is not None and len(cmd) > 2 else 0.0
    except ValueError:
        return None
    return t if 0 < t <= 1 else None


def run_multi(port, proto, script, connections):
    conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(connections)]
    for c in conns:
        if proto == 3:
            c.sendall(encode(["HELLO", "3"]))
        read_quiet(c, 0.2)
    conns[0].sendall(encode(["FLUSHALL"]))
    read_quiet(conns[0])
    replies = []
    for step in script:
        conn, cmd = step[0], step[1]
        conns[conn].sendall(encode(cmd))
        time.sleep(0.01)
        timeout = short_timeout(cmd)
        if timeout:  # its own timeout answers it: wait for that
            time.sleep(timeout)
            select.select([conns[conn]], [], [], 1.0)
        got = [read_quiet(c) for c in conns]
        if len(step) > 2 and step[2] == "sorted":
            got = [b"\n".join(sorted(g.split(b"\r\n"))) for g in got]
        if len(step) > 2 and step[2] == "pubsub":
            got = [b"\n".join(l for l in g.split(b"\r\n") if l.startswith(b"pubsub")) for g in got]
        if len(step) > 2 and step[2] == "blocked":
            got = [b"\n".join(l for l in g.split(b"\r\n") if l.startswith(b"blocked")) for g in got]
        replies.append(("one_shard", got) if len(step) > 2 and step[2] == "one_shard" else got)
    for c in conns:
        c.close()
    return replies


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv, port):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("could not start %s" % argv)


def load_modules(only):
    for path in sorted(HERE.glob("*.py")):
        if path.name == "run.py" or (only and path.stem != only):
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield path.stem, module


def start_servers(redis):
    """Redis and the three duet configurations, each on a free port: (processes, redis port, [(name, port)])."""
    servers = []
    try:
        rport = free_port()
        servers.append(start([redis, "--port", str(rport), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"],
                             rport))
        duets = []
        for name, env, extra in [("stackless", "DUET_KV_STACKLESS", []),
                                 ("stackful/epoll", "DUET_KV_STACKFUL", ["--backend", "epoll"]),
                                 ("stackless/threads=2", "DUET_KV_STACKLESS", ["--threads", "2"])]:
            port = free_port()
            servers.append(start([os.environ[env], "--port", str(port)] + extra, port))
            duets.append((name, port))
    except BaseException:  # one that does not start ends those already started
        for proc in servers:
            proc.kill()
        raise
    return servers, rport, duets


def job_cost(job):
    """A rough wall-clock weight: a multi-connection step waits for its connections to go quiet."""
    _, _, _, script, connections = job
    return len(script) * (50 if connections else 1)


def split_jobs(jobs, groups):
    """Whole modules into `groups` lists of about equal cost (scripts of a module stay in order)."""
    modules = {}
    for job in jobs:
        modules.setdefault(job[0], []).append(job)
    out = [[] for _ in range(groups)]
    for name in sorted(modules, key=lambda m: -sum(map(job_cost, modules[m]))):
        lightest = min(out, key=lambda g: sum(map(job_cost, g)))
        lightest.extend(modules[name])
    return [g for g in out if g]


def main():
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    protos = [int(sys.argv[sys.argv.index("--resp") + 1])] if "--resp" in sys.argv else [2, 3]
    groups = int(sys.argv[sys.argv.index("--groups") + 1]) if "--groups" in sys.argv else 3
    redis = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    if not redis:
        raise SystemExit("redis-server not found (./dev.sh deps installs it)")
    missing = [v for v in ("DUET_KV_STACKLESS", "DUET_KV_STACKFUL") if v not in os.environ]
    if missing:
        raise SystemExit("%s not set (meson test sets them)" % ", ".join(missing))
    jobs = []  # (module, protocol, index, script, connections or None)
    for module_name, module in load_modules(only):
        for proto in protos:
            if proto == 3 and getattr(module, "RESP2_ONLY", False):
                continue
            scripts = [(s, None) for s in module.SCRIPTS]
            scripts += [(s, module.CONNECTIONS) for s in getattr(module, "MULTI_SCRIPTS", [])]
            for index, (script, connections) in enumerate(scripts):
                jobs.append((module_name, proto, index, script, connections))
    # Most of the time is waiting (a multi-connection step reads until its
    # connections go quiet): groups of modules run at once, each on servers of
    # its own, so the suite takes the longest group's time, not the sum.
    work = split_jobs(jobs, max(1, groups))
    server_sets = []
    try:
        for _ in work:
            server_sets.append(start_servers(redis))

        def run_group(g):  # every server of the group runs the group's whole list at once
            _, rport, duets = server_sets[g]

            def run_all(port):
                return [run_multi(port, proto, script, connections) if connections
                        else run_script(port, proto, script) for _, proto, _, script, connections in work[g]]
            with concurrent.futures.ThreadPoolExecutor(len(duets) + 1) as pool:
                return list(pool.map(run_all, [rport] + [port for _, port in duets]))

        with concurrent.futures.ThreadPoolExecutor(len(work)) as pool:
            group_results = list(pool.map(run_group, range(len(work))))
    finally:
        for servers, _, _ in server_sets:
            for proc in servers:
                proc.kill()
                proc.wait()
    bad = checked = 0
    for g, results in enumerate(group_results):
        duets = server_sets[g][2]
        for (name, _), got_all in zip(duets, results[1:]):
            for (module_name, proto, index, script, _), want, got in zip(work[g], results[0], got_all):
                steps = list(script) + [("keyspace", ["<keyspace after>"])]
                for step, x, y in zip(steps, want, got):
                    mode = x[0] if isinstance(x, tuple) else None
                    if mode == "one_shard" and "threads" in name:
                        continue
                    checked += 1
                    if mode == "known" and x != y:
                        print("KNOWN %s script %d RESP%d %s %.200r" % (module_name, index, proto, name, step))
                        continue
                    if x != y:
                        bad += 1
                        print("DIFF %s script %d RESP%d %s %r\n  redis: %.400r\n  duet:  %.400r"
                              % (module_name, index, proto, name, step, x, y))
    print("%d passed, %d failed" % (checked - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    # meson's timeout sends SIGTERM: unwind through main's finally, which stops the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
