#!/usr/bin/env python3
"""Side-by-side KV benchmark: duet's voices and backends, two baselines, Redis.

Starts each server configuration in turn (A B C D ... R, then again, so slow
drift of a shared machine spreads over all of them), drives the same workloads
against each with the client pinned to one core and the server to the other,
and records throughput, latency percentiles, server CPU time per request,
resident memory after the load and per idle connection. Writes every raw
sample to results.json, medians (with min/max) to results.md, and bar charts
to chart.svg. The pub/sub fan-out workload lives in pubsub.py, the --threads 2
rows and the MGET workload in thread_rows.py. Called by bench/compare/run.sh,
which builds first.
"""
import argparse
import csv
import io
import json
import os
import socket
import statistics
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import chart
import ordered_rows
import pubsub
import thread_rows
import tls_rows

TLS_CERTS = None  # set by --tls: the certificates' directory; the TLS rows' clients trust its CA
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
SERVER_CPU, CLIENT_CPU = "0", "1"  # --pin none: both become every CPU
ALL_CPUS = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))


def aof_configurations(build, port, aof_dir):
    """Persistence rows (issue 7): duet's stackless and stackful builds and Redis
    with an append-only file under each fsync policy, each in a directory of its
    own that run_config empties before every start (no replay of an old log)."""
    kv = f"{build}/src/kv"
    duet_flags = ["--port", str(port), "--maxclients", "12000", "--loglevel", "warning"]
    rows = {}
    for policy in ("everysec", "always"):
        def aof(name):
            d = os.path.join(aof_dir, f"{name.replace('/', '_')}-{policy}")
            return ["--appendonly", "yes", "--appendfsync", policy, "--dir", d,
                    "--auto-aof-rewrite-percentage", "0"]
        rows[f"stackless/io_uring aof-{policy}"] = [f"{kv}/duet-kv-stackless", "--backend", "io_uring",
                                                    *duet_flags, *aof("stackless")]
        rows[f"stackful/epoll aof-{policy}"] = [f"{kv}/duet-kv-stackful", "--backend", "epoll",
                                                *duet_flags, *aof("stackful")]
        rows[f"redis aof-{policy}"] = ["redis-server", "--port", str(port), "--save", "", "--maxclients", "12000",
                                       "--loglevel", "warning", *aof("redis")]
    return rows


def configurations(build, port):
    kv = f"{build}/src/kv"
    base = f"{build}/bench/baselines"
    duet_flags = ["--port", str(port), "--maxclients", "12000", "--loglevel", "warning"]
    return {
        "stackless/io_uring": [f"{kv}/duet-kv-stackless", "--backend", "io_uring", *duet_flags],
        "stackless/epoll": [f"{kv}/duet-kv-stackless", "--backend", "epoll", *duet_flags],
        "stackful/io_uring": [f"{kv}/duet-kv-stackful", "--backend", "io_uring", *duet_flags],
        "stackful/epoll": [f"{kv}/duet-kv-stackful", "--backend", "epoll", *duet_flags],
        "threads": [f"{base}/kv_threads", *duet_flags],
        "reactor": [f"{base}/kv_reactor", *duet_flags],
        "redis": ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                  "--maxclients", "12000", "--loglevel", "warning"],
        "floor/epoll": [f"{build}/bench/floor/floor_epoll", "--port", str(port)],
        "floor/io_uring": [f"{build}/bench/floor/floor_uring", "--port", str(port)],
        **thread_rows.configurations(build, port),
    }


def workloads(scale, clients):
    """(name, client, arguments, size). For redis-benchmark the size is the request
    count; for duet's load generator (bench/echo/echo_load --resp) it is seconds.
    SET runs before GET so GETs hit."""
    out = []
    for pipeline in (1, 16):
        n = int((100_000 if pipeline == 1 else 1_000_000) * scale)
        if "redis-benchmark" in clients:
            out.append((f"ping P{pipeline}", "redis-benchmark", ["-t", "ping_inline", "-P", str(pipeline)], n))
        for size in (3, 1024):
            for test in ("set", "get"):
                if "redis-benchmark" in clients:
                    args = ["-t", test, "-P", str(pipeline), "-d", str(size), "-r", "100000"]
                    out.append((f"{test} {size}B P{pipeline}", "redis-benchmark", args, n))
                if "duet" in clients:
                    args = ["--resp", test, "--pipeline", str(pipeline), "--size", str(size), "--keys", "100000"]
                    out.append((f"duet {test} {size}B P{pipeline}", "duet", args, round(3.0 * scale, 2)))
    out += thread_rows.workloads(scale) if "redis-benchmark" in clients else []
    out += type_workloads(scale) if "types" in clients else []
    out += transaction_workloads(scale) if "multi" in clients else []
    out += ordered_rows.workloads(scale) if "ordered" in clients else []
    return out + (pubsub.workloads(scale) if "pubsub" in clients else [])


# redis-benchmark's own tests of the types (issue 25): each works on one key
# (mylist, myset, myhash); LPUSH runs before LPOP and LRANGE_100 fills first.
TYPE_TESTS = ("lpush", "rpush", "lpop", "rpop", "sadd", "hset", "spop", "lrange_100")


def type_workloads(scale):
    out = []
    for pipeline in (1, 16):
        n = int((100_000 if pipeline == 1 else 1_000_000) * scale)
        for test in TYPE_TESTS:
            out.append((f"{test} P{pipeline}", "redis-benchmark", ["-t", test, "-P", str(pipeline), "-r", "100000"], n))
    return out


# MULTI, three commands, EXEC as one message (issue 27), from duet's load
# generator (redis-benchmark has no transaction test): "multi" on one hash
# key (one shard), "multi3" SET/INCR/GET of three keys (several shards with
# --threads N). Requests are transactions.
def transaction_workloads(scale):
    return [(f"{mode} P16", "duet", ["--resp", mode, "--pipeline", "16", "--size", "3", "--keys", "100000"],
             round(3.0 * scale, 2)) for mode in ("multi", "multi3")]


class Server:
    """A server process pinned to cpus (SERVER_CPU unless told), with /proc readings."""

    def __init__(self, argv, port, cpus=None):
        self.port = port
        # A server already there (another run, a leftover) would be measured
        # instead. The previous configuration's may still answer for a moment
        # after it died: a killed io_uring server's listening socket lives on
        # until the kernel's ring teardown (a workqueue) cancels its accept.
        free_by = time.time() + 5
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            except OSError:
                break
            if time.time() > free_by:
                raise RuntimeError(f"port {port} is already in use: pick another with --port")
            time.sleep(0.1)
        self.proc = subprocess.Popen(["taskset", "-c", cpus or SERVER_CPU, *argv],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{argv[0]} exited: {self.proc.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{argv[0]} did not listen on {port}")

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime, all threads

    def rss_bytes(self):
        with open(f"/proc/{self.proc.pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE

    def stop_traced(self):
        """Under strace: stop the traced server, so strace writes its summary and exits.
        A server that does not stop within 30 s under the tracer is killed (strace
        still writes the summary when its tracee dies)."""
        with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
            children = [int(pid) for pid in f.read().split()]
        for signal in (15, 9):
            for pid in children:
                try:
                    os.kill(pid, signal)
                except ProcessLookupError:
                    pass
            try:
                self.proc.wait(timeout=30)
                return
            except subprocess.TimeoutExpired:
                continue

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def redis_benchmark(port, args, n, clients=50):
    tls = tls_rows.client_args(TLS_CERTS) if TLS_CERTS else []
    cmd = ["taskset", "-c", CLIENT_CPU, "redis-benchmark", "-p", str(port), "-c", str(clients),
           "-n", str(n), "--csv", *tls, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    rows = list(csv.DictReader(io.StringIO(done.stdout))) if done.returncode == 0 else []
    if not rows:
        raise RuntimeError(f"no result from {' '.join(cmd)}: {done.stdout} {done.stderr}")
    row = rows[-1]
    return {"rps": float(row["rps"]), "p50_ms": float(row["p50_latency_ms"]),
            "p99_ms": float(row["p99_latency_ms"]), "max_ms": float(row["max_latency_ms"])}


def duet_load(build, port, args, seconds, clients=50):
    cmd = ["taskset", "-c", CLIENT_CPU, f"{build}/bench/echo/echo_load", "--port", str(port),
           "--connections", str(clients), "--duration", str(seconds), "--warmup", "0", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    return {"rps": row["rps"], "requests": row["requests"], "p50_ms": row["p50_us"] / 1000,
            "p99_ms": row["p99_us"] / 1000, "p999_ms": row["p999_us"] / 1000}


def measure(server, port, workload, build):
    _, client, args, size = workload
    if client == "pubsub":  # measures the server's CPU itself, over the fan-out alone
        return pubsub.measure(build, port, args, size, server.proc.pid, CLIENT_CPU)
    cpu0, t0 = server.cpu_seconds(), time.time()
    if client == "duet":
        sample = duet_load(build, port, args, size)
        requests = sample["requests"]
    elif client == "handshake":
        sample = tls_rows.handshake_load(build, port, TLS_CERTS, size, CLIENT_CPU, args)
        requests = sample["requests"]
    else:
        sample = redis_benchmark(port, args, size)
        requests = size
    sample["seconds"] = time.time() - t0
    sample["server_cpu_us_per_req"] = (server.cpu_seconds() - cpu0) * 1e6 / max(requests, 1)
    return sample


def idle_connection_bytes(server, port, count):
    """Resident bytes the server adds per connected, once-used, idle client."""
    before = server.rss_bytes()
    conns = []
    try:
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"PING\r\n")
            conns.append(s)
        for s in conns:
            s.settimeout(10)
            if not s.recv(64).startswith(b"+PONG"):
                raise RuntimeError("no +PONG on an idle connection")
        time.sleep(0.2)
        return (server.rss_bytes() - before) / count
    finally:
        for s in conns:
            s.close()


def empty_log_dir(argv):
    """A persistence row starts from an empty log every time (else the server
    first loads the previous run's log and answers LOADING)."""
    if "--dir" in argv:
        d = argv[argv.index("--dir") + 1]
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)


def run_config(name, argv, port, loads, idle, build):
    empty_log_dir(argv)
    server = Server(argv, port, thread_rows.server_cpus(name, SERVER_CPU, ALL_CPUS))
    samples = {}
    try:
        for load in loads:
            if name.startswith("floor") and not load[0].startswith("ping"):
                continue
            samples[load[0]] = measure(server, port, load, build)
        rss_after = server.rss_bytes()
        per_idle = idle_connection_bytes(server, port, idle) if idle and not name.startswith("floor") else None
    finally:
        server.stop()
    return {"workloads": samples, "rss_after_load": rss_after, "idle_bytes_per_conn": per_idle}


def strace_total_calls(path):
    """The 'total' row of strace -c: % time, seconds, usecs/call, calls, [errors,] 'total'."""
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and fields[-1] == "total":
                return int(fields[3])
    raise RuntimeError(f"no total in {path}")


def syscalls_per_request(name, argv, port, out_dir):
    """Server syscalls per GET (3-byte values; PING for the floor servers) at pipeline 1 and 16,
    counted by strace -f -c
    in runs of their own (strace slows the server; these runs are never timed). The
    calls of a run with no load (start, one connection, stop) are subtracted."""
    def traced(args, n):
        path = f"{out_dir}/strace-{name.replace('/', '_')}.txt"
        empty_log_dir(argv)
        cpus = thread_rows.server_cpus(name, SERVER_CPU, ALL_CPUS)
        server = Server(["strace", "-f", "-c", "-o", path, *argv], port, cpus)
        try:
            if n:  # the floor servers answer lines, not commands: measure them on PING
                test = ["-t", "ping_inline"] if name.startswith("floor") else ["-t", "get", "-d", "3", "-r", "100000"]
                redis_benchmark(port, [*test, *args], n)
        finally:
            if server.proc.poll() is None:
                server.stop_traced()  # never stop strace first: it would detach and orphan the server
        return strace_total_calls(path)
    idle = traced([], 0)
    return {f"get 3B P{p}": (traced(["-P", str(p)], n) - idle) / n for p, n in ((1, 20_000), (16, 200_000))}


def floor_cpu(results, names):
    """The floor's CPU µs per request at each pipeline depth: the cheaper floor
    server answering PING. Every workload at that depth is compared with it."""
    floors = {}
    for pipeline in ("P1", "P16"):
        vals = [statistics.median(r[n]["workloads"][f"ping {pipeline}"]["server_cpu_us_per_req"] for r in results)
                for n in names if n.startswith("floor") and f"ping {pipeline}" in results[0][n]["workloads"]]
        if vals:
            floors[pipeline] = min(vals)
    return floors


def median_table(results, loads, names):
    floors = floor_cpu(results, names)
    lines = ["| workload | configuration | req/s (median, min–max) | p50 ms | p99 ms | p99.9 ms | "
             "server CPU µs/req | × redis CPU (same fsync policy) | × floor CPU |", "|---|---|---|---|---|---|---|---|---|"]
    for load_name, *_ in loads:
        per_cfg = {}
        for name in names:
            reps = [r[name]["workloads"][load_name] for r in results if load_name in r[name]["workloads"]]
            if reps:
                per_cfg[name] = reps
        def med(name, key):
            return statistics.median(s[key] for s in per_cfg[name])
        floor = floors.get(load_name.rsplit(" ", 1)[-1])
        for name, reps in per_cfg.items():
            rps = [s["rps"] for s in reps]
            cpu = med(name, "server_cpu_us_per_req")
            # Persistence rows compare with Redis under the same fsync policy.
            ref = "redis" + (name[name.index(" aof-"):] if " aof-" in name else "")
            ref = "tls redis" if name.startswith("tls ") else ref
            redis = med(ref, "server_cpu_us_per_req") if ref in per_cfg else None
            vs_redis = f"{cpu / redis:.2f}" if redis else "-"
            vs_floor = f"{cpu / floor:.2f}" if floor else "-"
            p999 = f"{med(name, 'p999_ms'):.3f}" if "p999_ms" in reps[0] else "-"
            lines.append(f"| {load_name} | {name} | {statistics.median(rps):,.0f} "
                         f"({min(rps):,.0f}–{max(rps):,.0f}) | {med(name, 'p50_ms'):.3f} | "
                         f"{med(name, 'p99_ms'):.3f} | {p999} | {cpu:.2f} | {vs_redis} | {vs_floor} |")
    return lines


def memory_table(results, names):
    lines = ["| configuration | RSS after load (MiB) | bytes per idle connection |", "|---|---|---|"]
    for name in names:
        rss = statistics.median(r[name]["rss_after_load"] for r in results) / 2**20
        idle = [r[name]["idle_bytes_per_conn"] for r in results if r[name]["idle_bytes_per_conn"] is not None]
        lines.append(f"| {name} | {rss:.1f} | {statistics.median(idle):,.0f} |" if idle else f"| {name} | {rss:.1f} | - |")
    return lines


def syscall_table(syscalls):
    if not syscalls:
        return []
    loads = sorted({w for per in syscalls.values() for w in per})
    lines = ["| configuration | " + " | ".join(f"syscalls/req, {w}" for w in loads) + " |",
             "|---|" + "---|" * len(loads)]
    for name, per in syscalls.items():
        lines.append(f"| {name} | " + " | ".join(f"{per[w]:.2f}" if w in per else "-" for w in loads) + " |")
    return lines


def write_outputs(opts, results, loads, names, syscalls):
    """results.json (every raw sample), results.md (medians) and chart.svg."""
    meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "argv": sys.argv, "cpus": os.cpu_count(),
            "kernel": os.uname().release, "workloads": [w[0] for w in loads], "repetitions": len(results)}
    with open(f"{opts.out}/results.json", "w") as f:
        json.dump({"meta": meta, "samples": results, "syscalls_per_request": syscalls}, f, indent=1)
    kv_loads = [w for w in loads if not pubsub.is_pubsub(w[0])]
    md = ["# KV side by side", "", f"{meta['date']}, kernel {meta['kernel']}, {len(results)} repetitions, "
          f"server on CPU {SERVER_CPU} (--threads 2 rows: CPUs {ALL_CPUS}), client (redis-benchmark or duet's "
          f"echo_load --resp, 50 connections; pubsub_load for pub/sub) on CPU {CLIENT_CPU}.", "",
          *(median_table(results, kv_loads, names) if kv_loads else []), "",
          *thread_rows.ratio_table(results, kv_loads, names, statistics.median), "",
          *pubsub.table(results, loads, names),
          "", *memory_table(results, names), "", *syscall_table(syscalls), ""]
    with open(f"{opts.out}/results.md", "w") as f:
        f.write("\n".join(md))
    chart.write_svg(f"{opts.out}/chart.svg", results, kv_loads, names)
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build-release")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--port", type=int, default=7391)
    ap.add_argument("--idle", type=int, default=10_000, help="idle connections for the memory run (0: skip)")
    ap.add_argument("--only", default="", help="comma-separated configuration names")
    ap.add_argument("--workloads", default="", help="comma-separated workload names (e.g. 'get 3B P1,ping P1')")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="fraction of the default requests and durations (0.1 for a smoke run)")
    ap.add_argument("--syscalls", action="store_true", help="also count server syscalls per request (strace)")
    ap.add_argument("--aof", action="store_true",
                    help="also run the append-only-file rows (everysec, always) for duet and Redis")
    ap.add_argument("--tls", action="store_true",
                    help="run only the TLS rows (tls_rows.py): duet's TLS port and redis-server --tls-port")
    ap.add_argument("--pin", choices=("split", "none"), default="split",
                    help="split: server on CPU 0 (--threads 2 rows: every CPU), client on CPU 1; "
                         "none: server and client on every CPU")
    ap.add_argument("--clients", default="redis-benchmark,duet,pubsub,types",
                    help="load generators, comma-separated: redis-benchmark, duet (bench/echo/echo_load --resp), "
                         "pubsub (the pubsub_fanout workloads, bench/echo/pubsub_load), "
                         "types (redis-benchmark's list, set and hash tests), "
                         "multi (MULTI + 3 commands + EXEC, bench/echo/echo_load --resp multi|multi3), "
                         "ordered (sorted sets, HyperLogLog, geo: ordered_rows.py)")
    opts = ap.parse_args()
    # Ctrl-C and SIGTERM unwind through the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if opts.pin == "none":
        global SERVER_CPU, CLIENT_CPU
        SERVER_CPU = CLIENT_CPU = ALL_CPUS
    if not 1 <= opts.reps <= 50 or not 1024 <= opts.port <= 65000 or not 0 <= opts.idle <= 15_000 \
            or not 0.01 <= opts.scale <= 10:
        ap.error("--reps 1..50, --port 1024..65000, --idle 0..15000, --scale 0.01..10")

    configs = configurations(opts.build, opts.port)
    if opts.tls:
        global TLS_CERTS
        TLS_CERTS = tls_rows.make_certs(tempfile.mkdtemp(prefix="duet-tls-bench-"))
        configs, opts.idle = tls_rows.configurations(opts.build, opts.port, TLS_CERTS), 0
    aof_dir = tempfile.mkdtemp(prefix="duet-aof-bench-") if opts.aof else None
    if aof_dir:
        configs.update(aof_configurations(opts.build, opts.port, aof_dir))
    names = [n for n in configs if not opts.only or n in opts.only.split(",")]
    missing = [n for n in names if configs[n][0] != "redis-server" and not os.access(configs[n][0], os.X_OK)]
    if missing:
        sys.exit(f"side_by_side: not built: {', '.join(configs[n][0] for n in missing)}")
    loads = tls_rows.workloads(opts.scale) if opts.tls else workloads(opts.scale, opts.clients.split(","))
    if opts.workloads:
        wanted = opts.workloads.split(",")
        unknown = [w for w in wanted if w not in [load[0] for load in loads]]
        if unknown:
            ap.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(load[0] for load in loads)}")
        loads = [load for load in loads if load[0] in wanted]
    os.makedirs(opts.out, exist_ok=True)
    results, syscalls = [], {}
    for rep in range(opts.reps):
        row = {}
        for i, name in enumerate(names):
            print(f"\r[rep {rep + 1}/{opts.reps}] {name:<20} ({i + 1}/{len(names)})", end="", flush=True)
            row[name] = run_config(name, configs[name], opts.port, loads, opts.idle, opts.build)
        results.append(row)
        write_outputs(opts, results, loads, names, syscalls)  # a late failure keeps what was measured
    print()
    if opts.syscalls:
        for name in names:
            print(f"\r[syscalls] {name:<20}", end="", flush=True)
            syscalls[name] = syscalls_per_request(name, configs[name], opts.port, opts.out)
        print()
    md = write_outputs(opts, results, loads, names, syscalls)
    for tmp in (aof_dir, TLS_CERTS):
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(md))
    print(f"raw samples: {opts.out}/results.json, chart: {opts.out}/chart.svg")


if __name__ == "__main__":
    main()
