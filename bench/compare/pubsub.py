"""The pub/sub fan-out workload of side_by_side.py (issue 13).

One publisher and SUBSCRIBERS subscribers on one channel, driven by duet's own
client, bench/echo/pubsub_load (pinned to the client CPU like the other loads):
it PUBLISHes SIZE-byte messages in rounds of P (one write each; the next round
once every message of this one is answered and delivered) for the run's
seconds, counts every `message` push the subscribers receive, and reads the
server's CPU time (/proc/PID/stat, all threads) from the first PUBLISH to the
last delivery. Two depths, like the KV workloads: P1 (each message fans out
alone: a send per subscriber per message) and P16 (16 messages per round).

Figures: delivered messages/s and server CPU ns per delivered message, medians
over the repetitions, each configuration's CPU as a multiple of Redis's in the
same repetition, and messages per subscriber recv (how many messages each of
the server's sends carried, at least: the batching that sets the kernel's
share). A server without pub/sub (SUBSCRIBE answered with an error:
pubsub_load exits 3) is a row marked unsupported, not a failed run.
"""
import json
import statistics
import subprocess

SUBSCRIBERS = 1000
SIZE = 16
PIPELINES = (1, 16)
UNSUPPORTED_EXIT = 3


def workloads(scale):
    """(name, client, arguments, seconds) like side_by_side.workloads()."""
    return [(f"pubsub_fanout P{p}", "pubsub",
             ["--subscribers", str(SUBSCRIBERS), "--size", str(SIZE), "--pipeline", str(p)], round(3.0 * scale, 2))
            for p in PIPELINES]


def is_pubsub(load_name):
    return load_name.startswith("pubsub_fanout")


def measure(build, port, args, seconds, server_pid, client_cpu):
    """One run of pubsub_load against the server with this pid: a sample, or
    {"unsupported": reason} when the server has no pub/sub."""
    cmd = ["taskset", "-c", client_cpu, f"{build}/bench/echo/pubsub_load", "--port", str(port),
           "--duration", str(seconds), "--server-pid", str(server_pid), "--label", "pubsub_fanout", *args]
    # pubsub_load bounds itself (setup ≤ 80 s, a round's drain 5 s); the timeout is a backstop.
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 150)
    lines = done.stdout.strip().splitlines()
    row = json.loads(lines[-1]) if lines else {}
    if done.returncode == UNSUPPORTED_EXIT:
        return {"unsupported": row.get("error", done.stderr.strip())}
    if done.returncode != 0 or not row:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr}")
    return {"rps": row["delivered_per_s"], "delivered": row["delivered"], "published": row["published"],
            "lost": row["lost"], "disconnected": row["disconnected"],
            "receivers_mismatch": row["receivers_mismatch"], "messages_per_recv": row["messages_per_recv"],
            "server_cpu_s": row["server_cpu_s"],
            "server_cpu_ns_per_msg": row["server_cpu_ns_per_delivered"]}


def _vs_redis(results, load, name):
    """Median (min, max) over repetitions of this configuration's CPU per message ÷ Redis's in the same one."""
    ratios = []
    for r in results:
        mine, redis = r[name]["workloads"].get(load, {}), r.get("redis", {}).get("workloads", {}).get(load, {})
        if "server_cpu_ns_per_msg" in mine and redis.get("server_cpu_ns_per_msg", 0) > 0:
            ratios.append(mine["server_cpu_ns_per_msg"] / redis["server_cpu_ns_per_msg"])
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else "-"


def table(results, loads, names):
    """Markdown lines: one row per pub/sub workload and configuration."""
    loads = [w for w in loads if is_pubsub(w[0])]
    if not loads:
        return []
    lines = [f"Pub/sub fan-out: 1 publisher, {SUBSCRIBERS} subscribers, {SIZE}-byte messages, "
             "P = PUBLISHes per round (bench/echo/pubsub_load).", "",
             "| workload | configuration | delivered msg/s (median, min–max) | server CPU ns/msg | "
             "× Redis CPU (median, min–max of same-rep ratios) | messages per subscriber recv | lost (max) | "
             "disconnected (max) |", "|---|---|---|---|---|---|---|---|"]
    for load, *_ in loads:
        for name in names:
            reps = [r[name]["workloads"][load] for r in results if load in r[name]["workloads"]]
            if not reps:
                continue
            if any("unsupported" in s for s in reps):
                why = next(s["unsupported"] for s in reps if "unsupported" in s)
                lines.append(f"| {load} | {name} | unsupported: {why.strip().replace('|', '/')} | | | | | |")
                continue
            rps = [s["rps"] for s in reps]
            cpu = statistics.median(s["server_cpu_ns_per_msg"] for s in reps)
            per_recv = statistics.median(s["messages_per_recv"] for s in reps)
            lines.append(f"| {load} | {name} | {statistics.median(rps):,.0f} ({min(rps):,.0f}–{max(rps):,.0f}) | "
                         f"{cpu:.1f} | {_vs_redis(results, load, name)} | {per_recv:.1f} | "
                         f"{max(s['lost'] for s in reps):,} | {max(s['disconnected'] for s in reps)} |")
    return lines
