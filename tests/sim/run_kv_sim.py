#!/usr/bin/env python3
"""duet-kv-sim as CI runs it: seeds in both voices, one seed twice, a defect found.

    run_kv_sim.py DUET_KV_SIM [--seeds N] [--requests R]

- every seed 1..N passes in both voices (each line ends "ok", exit 0), and
  seeds 1..N/4 with --threads 2 (shards as threads taking turns);
- one seed run twice gives the same final line (trace hash included), with
  one thread and with two;
- with --defect send_all_stop (500 requests) and --defect aof_rewrite_loss
  (2000 requests, so that BGREWRITEAOF meets writes and a restart reads them
  back) some seed in 1..300 fails (exit 1, a replay command on its line), and
  that seed passes without the defect;
- bad flags exit 2 with a message.
Prints what it found; exits non-zero on the first broken promise.
"""
import subprocess
import sys


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)
    lines = p.stdout.strip().splitlines()
    return p.returncode, lines[-1] if lines else "", p.stdout + p.stderr


def main():
    exe = sys.argv[1]
    seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 20
    requests = sys.argv[sys.argv.index("--requests") + 1] if "--requests" in sys.argv else "3000"
    for voice in ("stackless", "stackful"):
        for seed in range(1, seeds + 1):
            code, last, out = run(exe, "--seed", str(seed), "--requests", requests, "--voice", voice)
            if code != 0 or not last.endswith(" ok") or f"seed {seed} requests {requests} trace " not in last:
                sys.exit(f"seed {seed} ({voice}) failed:\n{out}")
        for seed in range(1, seeds // 4 + 1):
            code, last, out = run(exe, "--seed", str(seed), "--requests", requests, "--voice", voice, "--threads", "2")
            if code != 0 or not last.endswith(" ok"):
                sys.exit(f"seed {seed} ({voice}, --threads 2) failed:\n{out}")
        for threads in ("1", "2"):
            args = ("--seed", "42", "--requests", requests, "--voice", voice, "--threads", threads)
            first, again = run(exe, *args)[1], run(exe, *args)[1]
            if first != again:
                sys.exit(f"seed 42 ({voice}, --threads {threads}) is not deterministic:\n{first}\n{again}")
            print(f"{voice}, --threads {threads}: seed 42 twice: {first}")
        print(f"{voice}: seeds 1..{seeds} ok, and 1..{seeds // 4} with --threads 2")

    for defect, count in (("send_all_stop", "500"), ("aof_rewrite_loss", "2000")):
        for seed in range(1, 301):
            code, last, out = run(exe, "--seed", str(seed), "--requests", count, "--defect", defect)
            if code == 0:
                continue
            if "FAIL replay: duet-kv-sim --seed" not in last or f"--defect {defect}" not in last:
                sys.exit(f"a failure without its replay line:\n{out}")
            code, last, out = run(exe, "--seed", str(seed), "--requests", count)
            if code != 0:
                sys.exit(f"seed {seed} fails without the defect too:\n{out}")
            print(f"{defect} found at seed {seed} ({count} requests); main passes that seed")
            break
        else:
            sys.exit(f"{defect} was not found in seeds 1..300")

    for bad in (["--seed", "x"], ["--requests", "0"], ["--voice", "both"], ["--threads", "0"], ["--defect", "nope"],
                ["--crashes", "-1"], ["--seed"]):
        code, _, out = run(exe, *bad)
        if code != 2 or "duet-kv-sim:" not in out:
            sys.exit(f"{bad} should exit 2 with a message, got {code}:\n{out}")
    print("bad flags: exit 2")


if __name__ == "__main__":
    main()
