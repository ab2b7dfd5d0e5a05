"""Sharded rows for side_by_side.py (issue 16): duet-kv with --threads 2 in
both voices (io_uring and epoll), the keyspace split over two shard threads,
and the MGET workload whose ten keys fall on both shards.

A --threads 2 row's server is pinned to both cores (its two shard threads need
them); every other row's to SERVER_CPU alone. Compare a row with its
--threads 1 twin (the same name without "/t2"): same voice, same backend, same
workload, same client.
"""

SUFFIX = "/t2"


def configurations(build, port, accept="reuseport"):
    kv = f"{build}/src/kv"
    flags = ["--port", str(port), "--maxclients", "12000", "--loglevel", "warning",
             "--threads", "2", "--accept", accept]
    return {f"{voice}/{backend}{SUFFIX}": [f"{kv}/duet-kv-{voice}", "--backend", backend, *flags]
            for voice in ("stackless", "stackful") for backend in ("io_uring", "epoll")}


def server_cpus(name, single_cpu, all_cpus):
    """The CPUs a configuration's server is pinned to."""
    return all_cpus if name.endswith(SUFFIX) else single_cpu


def twin(name):
    """The --threads 1 configuration a sharded row is compared with (None for the others)."""
    return name[:-len(SUFFIX)] if name.endswith(SUFFIX) else None


def workloads(scale):
    """MGET of 10 random keys (redis-benchmark replaces each __rand_int__ on its own,
    so the keys of one MGET fall on both shards), after the SET rows filled them."""
    keys = ["key:__rand_int__"] * 10
    out = []
    for pipeline in (1, 16):
        n = int((20_000 if pipeline == 1 else 100_000) * scale)
        out.append((f"mget10 3B P{pipeline}", "redis-benchmark",
                    ["-P", str(pipeline), "-r", "100000", "MGET", *keys], n))
    return out


def ratio_table(results, loads, names, median):
    """Server CPU per request and throughput of each /t2 row ÷ its --threads 1 twin,
    median of the per-repetition ratios (both measured in the same repetition)."""
    lines = ["| workload | configuration | CPU µs/req t1 → t2 | CPU t2 ÷ t1 (median, min–max) | "
             "req/s t1 → t2 | req/s t2 ÷ t1 |", "|---|---|---|---|---|---|"]
    for load_name, *_ in loads:
        for name in names:
            base = twin(name)
            if base not in names:
                continue
            reps = [(r[base]["workloads"][load_name], r[name]["workloads"][load_name]) for r in results
                    if load_name in r[name]["workloads"] and load_name in r[base]["workloads"]]
            if not reps:
                continue
            cpu = [b["server_cpu_us_per_req"] / a["server_cpu_us_per_req"] for a, b in reps]
            rps = [b["rps"] / a["rps"] for a, b in reps]
            def med(i, key):
                return median(pair[i][key] for pair in reps)
            lines.append(f"| {load_name} | {base} | {med(0, 'server_cpu_us_per_req'):.2f} → "
                         f"{med(1, 'server_cpu_us_per_req'):.2f} | "
                         f"{median(cpu):.2f} ({min(cpu):.2f}–{max(cpu):.2f}) | "
                         f"{med(0, 'rps'):,.0f} → {med(1, 'rps'):,.0f} | {median(rps):.2f} |")
    return lines if len(lines) > 2 else []
