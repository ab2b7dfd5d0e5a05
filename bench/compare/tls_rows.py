"""TLS rows for side_by_side.py (--tls): duet-kv's TLS port (both voices, both
backends) and redis-server --tls-port, with the same throw-away certificates
(tests/tls/make_certs.sh), under redis-benchmark --tls (GET/SET at pipeline 1
and 16) and duet's handshake loop (bench/tls/tls_handshake_load: connect, full
or resumed handshake, PING, close). Client certificates are off (--tls-auth-clients no)
on both servers, so both do the same work per handshake."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def make_certs(directory):
    subprocess.run([os.path.join(HERE, "..", "..", "tests", "tls", "make_certs.sh"), directory], check=True)
    return directory


def server_flags(certs, port):
    return ["--port", "0", "--tls-port", str(port), "--tls-cert-file", f"{certs}/server.crt",
            "--tls-key-file", f"{certs}/server.key", "--tls-ca-cert-file", f"{certs}/ca.crt",
            "--tls-auth-clients", "no", "--maxclients", "12000", "--loglevel", "warning"]


def configurations(build, port, certs):
    kv = f"{build}/src/kv"
    rows = {}
    for voice in ("stackless", "stackful"):
        for backend in ("io_uring", "epoll"):
            rows[f"tls {voice}/{backend}"] = [f"{kv}/duet-kv-{voice}", "--backend", backend,
                                              *server_flags(certs, port)]
    rows["tls redis"] = ["redis-server", *server_flags(certs, port), "--save", "", "--appendonly", "no"]
    return rows


def client_args(certs):
    """redis-benchmark's TLS flags: trust the test CA."""
    return ["--tls", "--cacert", f"{certs}/ca.crt"]


def workloads(scale):
    out = []
    for pipeline in (1, 16):
        n = int((100_000 if pipeline == 1 else 1_000_000) * scale)
        for test in ("set", "get"):
            out.append((f"tls {test} 3B P{pipeline}", "redis-benchmark",
                        ["-t", test, "-P", str(pipeline), "-d", "3", "-r", "100000"], n))
    out.append(("tls handshakes", "handshake", [], round(3.0 * scale, 2)))
    out.append(("tls resumed handshakes", "handshake", ["--resume", "1"], round(3.0 * scale, 2)))
    return out


def handshake_load(build, port, certs, seconds, client_cpu, args):
    """Handshakes per second from 8 concurrent duet client fibers (args: ["--resume", "1"] to resume)."""
    cmd = ["taskset", "-c", client_cpu, f"{build}/bench/tls/tls_handshake_load", "--port", str(port),
           "--ca", f"{certs}/ca.crt", "--connections", "8", "--duration", str(seconds), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stdout} {done.stderr}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    nan = float("nan")
    return {"rps": row["hps"], "requests": row["handshakes"], "failures": row["failures"],
            "p50_ms": nan, "p99_ms": nan}
